"""biasforge's overrides of argilla-server's internals, one module per override.

Everything here replaces or wraps something Argilla does not offer as an extension point (a
function of its contexts, a route already built, SQLAlchemy's aiosqlite adapter): every such
change is a row of ``patches.PATCHES`` that names its replacement here, and every one is
compared with a stock argilla-server by ``tests/annotation/test_overrides_differential.py``.
What Argilla does offer as extension points stays beside this folder: the search engine
(``sql_engine``, through ``SearchEngine.register``) and ASGI middleware (``asgi``,
``login_throttle``).

The modules run inside the server's virtualenv, with ``annotation/server`` on ``sys.path``
(the launcher puts it there): they import their siblings there as top-level modules.
"""
