"""Measured results from the literature beside the planner's predictions: /results/ and its
JSON twin /api/results/ (and a CSV export), the record charts, and the rows a hub or a work page
shows."""
