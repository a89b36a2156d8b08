"""Facts about the catalogue's data that several modules share; pure (no Django, no imports).

They live here, with the data, so that the models, the BibTeX module, the graph and the management
commands can all read them without importing each other.
"""

# The survey itself: the work whose reference list the catalogue starts from.
SURVEY_KEY = "bennun2018demystifying"

# A BibTeX key as the catalogue accepts it (the model's validator, the BibTeX import, the URLs).
KEY_REGEX = r"[A-Za-z0-9][A-Za-z0-9_.:-]*"

# Work attributes stored as BibTeX fields of the same name, in export order.
PLAIN_FIELDS = [
    "title",
    "journal",
    "booktitle",
    "volume",
    "number",
    "pages",
    "publisher",
    "doi",
    "url",
    "note",
    "abstract",
]

# The Work attributes an imported BibTeX record sets (authors apart).
WORK_FIELDS = [
    "entry_type",
    "title",
    "year",
    "authors_truncated",
    *PLAIN_FIELDS[1:],
    "arxiv_id",
    "survey_ref",
    "era",
    "source_url",
    "extra_fields",
]

# BibTeX entry types in words, for people ("inproceedings" is a conference paper).
ENTRY_TYPE_WORDS = {
    "article": "journal article",
    "inproceedings": "conference paper",
    "incollection": "chapter in a collection",
    "inbook": "part of a book",
    "book": "book",
    "techreport": "technical report",
    "phdthesis": "PhD thesis",
    "mastersthesis": "master's thesis",
    "manual": "manual",
    "misc": "other (preprint, web page, software)",
    "unpublished": "unpublished",
}

# A measured result's configuration: the keys of `config` in fixtures/results.json (the build
# refuses others, fixtures/build/results.py) and the Result model's fields the loader fills.
RESULT_CONFIG = (
    "network",
    "dataset",
    "global_batch",
    "batch_unit",
    "devices",
    "device_kind",
    "interconnect",
    "precision",
    "family",
    "strategy",
    "layout",
    "parameters",
)
