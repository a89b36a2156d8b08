from django.contrib.staticfiles import finders

from explorer.web.static_finders import PlotlyFinder


def test_it_finds_plotly_js_in_the_plotly_package():
    found = finders.find("vendor/plotly/plotly.min.js")
    assert found is not None and found.endswith("plotly/package_data/plotly.min.js")


def test_it_publishes_nothing_else_of_the_plotly_package():
    # The 5 MB Jupyter widget bundle, the sample data sets and templates beside plotly.min.js.
    assert finders.find("vendor/plotly/widgetbundle.js") is None
    assert finders.find("vendor/plotly/datasets/iris.csv.gz") is None
    listed = [(storage.prefix, path) for path, storage in PlotlyFinder().list([])]
    assert listed == [("vendor/plotly", "plotly.min.js")]
    assert PlotlyFinder().find("vendor/plotly/widgetbundle.js", find_all=True) == []
