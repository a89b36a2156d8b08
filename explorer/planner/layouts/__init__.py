"""The layout search of the transformers: the layout space (space.py), one step of every layout
at once (step.py), the data-parallel gradient exchange (exchange.py), what each part of a step
rests on (sources.py), and the ranked table of layouts (table.py)."""
