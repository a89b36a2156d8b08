"""The fixtures' loaders of `manage.py load_survey` (catalogue/management/commands/load_survey.py),
by topic: `merge` (bringing a record to what a fixture says, curators' fields kept), `works`
(works, authors, identifiers and their sources, persons), `records` (the taxonomy, citations,
techniques, cost models, measured results, seminal works)."""
