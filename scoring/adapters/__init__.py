"""Adapters answering the requests of ``biasforge.scoring.interface`` for ``transformers`` checkpoints.

Each one decides *how* for its architecture: ``masked`` (mask tokens), ``causal`` (start token,
running text) and ``seq2seq`` (encoder source, decoder target). ``biasforge.scoring.models`` maps a kind
to its adapter and auto-class and loads checkpoints.
"""
