"""Code that runs inside the argilla-server virtualenv (launcher, SQL search engine, speed-ups).

Not imported by the main environment: these modules need ``argilla_server``, which lives only
in the server's own virtualenv. ``biasforge.annotation.admin.serve`` runs ``launcher.py`` there as a script.
"""
