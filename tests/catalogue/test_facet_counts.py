"""The works page's facet counts (SQL compiled once around a stand-in for the filtered ids)
against the same counts made in Python over the filtered works."""

from collections import Counter

import pytest
from django.db.models.expressions import RawSQL
from django.http import QueryDict

from catalogue.models import Assignment, Work
from catalogue.models.costs import has_cost_model, has_demo
from catalogue.models.work_counts import IDS_STAND_IN, _with_ids
from explorer.works.filters import WorkFilter


def counted_in_python(works) -> dict:
    rows = list(works.order_by().values_list("pk", "year", "entry_type"))
    ids = [pk for pk, _, _ in rows]
    with_cost_model = set(Work.objects.filter(has_cost_model()).values_list("pk", flat=True))
    with_demo = set(Work.objects.filter(has_demo()).values_list("pk", flat=True))
    pairs = set(Assignment.objects.filter(work__in=ids).values_list("evidence", "work"))
    evidence = Counter(level for level, _ in pairs)
    years = Counter(year for _, year, _ in rows)
    return {
        "total": len(rows),
        "years": sorted(years.items(), key=lambda item: (item[0] is None, item[0] or 0)),
        "entry_types": sorted(Counter(kind for _, _, kind in rows).items()),
        "evidence": sorted(evidence.items()),
        "flags": {
            "has_cost_model": len(with_cost_model.intersection(ids)),
            "has_demo": len(with_demo.intersection(ids)),
        },
    }


@pytest.mark.parametrize(
    "query",
    [
        "",
        "level=train",
        "q=gradient",
        "category=train-cons-async&year_min=2014",
        "era=all&has_demo=true",
        "era=after&level=net",
        "evidence=confirmed&q=parallel",
    ],
)
def test_the_facets_count_what_the_filter_lists(survey, query):
    works = WorkFilter(QueryDict(query), queryset=Work.objects.all())
    assert works.is_valid(), works.form.errors
    assert works.qs.facet_counts() == counted_in_python(works.qs)


def test_the_ids_go_where_the_stand_in_was_with_their_parameters_in_order():
    compiled = (f"SELECT a FROM t WHERE b = %s AND id IN ({IDS_STAND_IN}) AND c = %s", (1, 3))
    ids = RawSQL("SELECT id FROM u WHERE d = %s", (2,))
    sql, params = _with_ids(compiled, ids)
    assert (
        sql == "SELECT a FROM t WHERE b = %s AND id IN (SELECT id FROM u WHERE d = %s) AND c = %s"
    )
    assert params == (1, 2, 3)
    with pytest.raises(ValueError, match="stand-in"):
        _with_ids(("SELECT 1", ()), ids)
