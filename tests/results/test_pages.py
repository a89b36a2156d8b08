"""/results/ and /results/mlperf/ as a reader sees them: titles, filters in words, choices."""

import re

from catalogue.bibtex import display_text
from catalogue.models import Result
from tests.helpers import make_mlperf_score


def test_it_shows_work_titles_not_bibtex_keys(client, survey):
    html = client.get("/results/").content.decode()
    works = {r.work for r in Result.objects.select_related("work") if r.work}
    assert works
    for work in works:
        # The key only in the link's URL; the link's text is the title as readers see it.
        assert f'href="/works/{work.key}/">{display_text(work.title)}</a>' in html.replace(
            "&#x27;", "'"
        ).replace("&amp;", "&")
        assert f">{work.key}<" not in html


def test_it_labels_its_filters_in_words(client, survey):
    html = client.get("/results/").content.decode()
    labels = re.findall(r"<label>([^<]*)<", html)
    assert labels == [
        "Technique ",
        "Network ",
        "Strategy family ",
        "Source status ",
        "From year ",
        "Up to year ",
        "Devices, at least ",
        "Devices, at most ",
        "Order by ",
    ]
    assert '<option value="allreduce">' in html  # the techniques are a list to choose from


def test_mlperf_offers_rounds_and_benchmarks_from_the_data(client, survey):
    make_mlperf_score(version="v1.0", benchmark="resnet")
    make_mlperf_score(version="v2.0", benchmark="bert", system_id="other")
    html = client.get("/results/mlperf/").content.decode()
    rounds = re.search(r'<select name="round"[^>]*>(.*?)</select>', html, re.S).group(1)
    assert re.findall(r'value="([^"]*)"', rounds) == ["", "v2.0", "v1.0"]
    benchmarks = re.search(r'<select name="benchmark"[^>]*>(.*?)</select>', html, re.S).group(1)
    assert set(re.findall(r'value="([^"]*)"', benchmarks)) == {"", "resnet", "bert"}
    labels = re.findall(r"<label>([^<]*)<", html)
    assert "Scores per page " in labels and not any("_" in label for label in labels)
    # The API reads the same values, and refuses another naming the parameter.
    assert client.get("/api/results/mlperf/?round=v2.0&benchmark=bert").json()["count"] == 1
    assert list(client.get("/api/results/mlperf/?round=v9.9").json()["errors"]) == ["round"]


def test_it_carries_to_mlperf_the_filters_both_lists_take():
    from explorer.mlperf.documents import MlperfForm
    from explorer.results.documents import ResultsForm
    from explorer.results.views import MLPERF_FILTERS

    both = set(MlperfForm.base_fields) & set(ResultsForm.base_fields) - {"ordering"}
    assert set(MLPERF_FILTERS) == both


def test_the_table_follows_the_query_with_rows_kept_per_version(client, survey, settings):
    """The rows' HTML is kept per catalogue version (explorer/results/views.py); each query
    still picks and orders its own, and an edit is on the next request."""
    settings.RESPONSE_CACHE = False
    for query in ("", "?ordering=-year", "?network=resnet-50", "?status=read&ordering=devices"):
        document = client.get(f"/api/results/{query}").json()
        html = client.get(f"/results/{query}").content.decode()
        shown = re.findall(r'<tr id="result-([^"]+)">', html)
        assert shown == [row["id"] for row in document["results"]]
    result = Result.objects.order_by("slug").first()
    result.location = "Table 9, edited"
    result.save()
    assert "<td>Table 9, edited</td>" in client.get("/results/?ordering=year").content.decode()
