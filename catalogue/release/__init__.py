"""Versioned releases of the public catalogue (issue 45): what a release holds (`tables`), how
its files are written (`files`: the SQLite file, the data package, the checksums), what changed
since the previous one (`changelog`), and the releases already cut (`shelf`: their manifests,
citations and the data version every answer names).

A release is immutable: `cut` writes a new folder under RELEASES_DIR and refuses an existing
one. Nothing private is ever read: the tables are named one by one (accounts, sessions, demo
runs, admin logs and the curation log are not among them).
"""
