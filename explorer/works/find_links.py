"""'Find this work' links: searches for a work in dblp, Semantic Scholar and Google Scholar,
built from its title and first author's family name.

Most works have no DOI, URL or arXiv id (1, 12 and 67 of 270), so these searches are the reader's
way to the paper. They are searches, not identifiers: built when a page is shown, never stored,
and labelled as searches (the first hit may be another paper). Pure: text in, URLs out.

The search pages take the query in `q`: https://dblp.org/search?q=...,
https://www.semanticscholar.org/search?q=..., https://scholar.google.com/scholar?q=...
"""

from __future__ import annotations

from urllib.parse import urlencode

from catalogue.bibtex import display_text, person_name

SEARCHES = [
    ("dblp", "https://dblp.org/search"),
    ("Semantic Scholar", "https://www.semanticscholar.org/search"),
    ("Google Scholar", "https://scholar.google.com/scholar"),
]


def search_links(title: str, author_names: list[str]) -> list[dict[str, str]]:
    """[{"site", "url"}] for one work; the query is the title and the first author's family
    name (the words every index has), with BibTeX markup decoded."""
    words = [display_text(title)]
    if author_names and (family := person_name(author_names[0]).family):
        words.append(family)
    query = urlencode({"q": " ".join(words)})
    return [{"site": site, "url": f"{base}?{query}"} for site, base in SEARCHES]
