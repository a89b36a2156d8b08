"""/data/: the catalogue's versioned releases (catalogue/release/), their files served by the
app, a citation per version, and the page's JSON twin /api/data/."""
