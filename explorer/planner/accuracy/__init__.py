"""How right the planner is: the calibration of its efficiency on MLPerf's measured runs and the
published runs (calibration/), the report the pages show (report), its page (views) and JSON twin
(api)."""
