"""Talking to an Argilla server as its client: finding it, its REST API, names it accepts,
workspaces, and the secrets a client reads (API keys, a dataset's private state).

Nothing here starts or administers a server (that is :mod:`biasforge.annotation.admin`) and
nothing here runs inside one (:mod:`biasforge.annotation.server`): a client works the same
against the embedded server and a team's own Argilla.
"""
