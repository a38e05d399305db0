"""Running and administering the embedded Argilla server: its virtualenv, where it listens
and over what (TLS), the supervisor that starts and stops it, its users and their
invitations.

The code that runs *inside* the server's own virtualenv is :mod:`biasforge.annotation.server`
(started as a script, never imported from here); what a command needs to talk to a server,
embedded or not, is :mod:`biasforge.annotation.client`.
"""
