"""A signed-in session ends as soon as its user's password, role or account changes (two rows
of ``patches.PATCHES``; issue 47, item 4).

Argilla's session token (what the web UI keeps after signing in and sends as
``Authorization: Bearer``) is a JWT signed with the server's secret that names the user and an
expiry (a day). Argilla checks only the signature, the expiry and that a user of that name
exists: after ``annotate users --reset-password``, a role change or the removal of a user, a
token issued before kept working until it expired or the server restarted (a new secret).

Here every token also carries a *session stamp*: a digest of the user's id, role and password
hash at the moment it was issued. Every request with a token recomputes the stamp from the
user's row as it is now (the row the request loads anyway) and refuses a token whose stamp
differs, as Argilla refuses a token that does not verify (HTTP 401). So a password reset, a
role change, or a user removed (and perhaps created again under the same name: a new id) ends
every session of that user at once, in every web process (the stamp lives in the database, not
in a process's memory), with no table of revoked tokens to keep. API keys are not sessions:
``--reset-password`` rotates the key itself (``launcher.rotate_api_key``).

A password hash re-hashed at the server's cost on a sign-in (``load_tuning.authenticate_user``)
changes the stamp too: a user whose hash predates that cost is signed out of their other
browsers once, at that sign-in.
"""

from __future__ import annotations

import hashlib

#: the token claim that holds the session stamp
CLAIM = "biasforge_session"


def session_stamp(user) -> str:
    """The digest a token must carry to be valid for ``user`` as the database holds it now."""
    role = getattr(user.role, "value", user.role)
    seed = "\0".join((str(user.id), str(role), user.password_hash or ""))
    return hashlib.sha256(seed.encode("utf-8")).hexdigest()[:32]


def stamped_token(stock_generate_user_token):
    """``accounts.generate_user_token``: Argilla's token with the session stamp added."""
    from argilla_server.security.authentication.jwt import JWT

    def generate_user_token(user) -> str:
        claims = JWT.decode(stock_generate_user_token(user))
        return JWT.encode({**claims, CLAIM: session_stamp(user)})

    return generate_user_token


def stamp_checked(stock_authenticate):
    """``BearerTokenAuthenticationBackend.authenticate``: Argilla's check, then the stamp
    against the user's row; a token without the stamp or with another one is not a session."""
    from argilla_server.contexts import accounts
    from argilla_server.security.authentication.jwt import JWT

    async def authenticate(self, request):
        found = await stock_authenticate(self, request)
        if found is None:
            return None
        claims = JWT.decode((await self.scheme(request)).credentials)  # verified just above
        user = await accounts.get_user_by_username(request.state.db, claims.get("username"))
        if user is None or claims.get(CLAIM) != session_stamp(user):
            return None
        return found

    return authenticate
