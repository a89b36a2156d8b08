"""The web plumbing every feature uses: the one API error shape, JSON rendering, pagination,
links by URL name, the API root and schema, throttling, middleware,
query-parameter forms, body parsers, permissions and the level palette.

Features import it; it imports no feature (an import contract in pyproject.toml)."""
