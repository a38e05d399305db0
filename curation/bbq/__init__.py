"""BBQ: the Bias Benchmark for QA (Parrish et al., Findings of ACL 2022) from its templates.

The authors' ``generate_from_template_all_categories.py`` is mirrored step by step in
:mod:`~biasforge.curation.bbq.generate`, with the samples it draws taken from a seeded
generator so that a run is reproducible (the authors' script draws from Python's global
``random`` without a seed). The bundled templates and vocabularies are
``curation/data/bbq`` (nyu-mll/BBQ, CC BY 4.0).
"""
