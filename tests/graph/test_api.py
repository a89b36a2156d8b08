"""The graph API: /api/graph/ in four formats, /api/snowball/, /api/works/<key>/related/ and
/api/data-quality/, on a small hand-made catalogue."""

import csv
import io

import networkx as nx
import pytest
from drf_spectacular.generators import SchemaGenerator

from catalogue.source_kinds import FACTS
from explorer.graph.documents import CAVEAT, COLLECTION_CAVEAT
from tests.helpers import clear_caches, make_assignment, make_category, make_citation, make_work

SURVEY = "bennun2018demystifying"


@pytest.fixture(autouse=True)
def empty_cache():
    clear_caches()
    yield
    clear_caches()


@pytest.fixture
def catalogue(db):
    """The survey citing three references; resnet cites alexnet (bibliography) and lenet (note)."""
    survey = make_work(SURVEY, title="Demystifying", year=2018)
    alexnet = make_work("alexnet", title="{ImageNet} Classification", year=2012, survey_ref=1)
    resnet = make_work("resnet", title="Deep Residual Learning", year=2016, survey_ref=2)
    lenet = make_work("lenet", title="Gradient-Based Learning", year=1998, survey_ref=3)
    ops = make_category("ops", name="Concurrency in operators")
    make_category("net", name="Concurrency in networks", section="6")
    make_assignment(alexnet, make_category("ops-conv", parent=ops, name="Convolution"))
    make_assignment(resnet, ops)
    for work in (alexnet, resnet, lenet):
        make_citation(survey, work, provenance="survey-reference-list")
    make_citation(resnet, alexnet)
    make_citation(resnet, lenet, provenance="reference-list-note")
    return {"survey": survey, "alexnet": alexnet, "resnet": resnet, "lenet": lenet}


def node(key, title, year, ref, level, categories, in_degree, out_degree, pagerank):
    return {
        "id": key,
        "key": key,
        "title": title,
        "year": year,
        "survey_ref": ref,
        "era": "survey",
        "level": level,
        "levels": [level] if level else [],
        "categories": categories,
        "in_degree": in_degree,
        "out_degree": out_degree,
        "pagerank": pagerank,
        "url": f"/works/{key}/",
    }


ALEXNET = node("alexnet", "ImageNet Classification", 2012, 1, "ops", ["Convolution"], 1, 0, 0.3701)
RESNET = node(
    "resnet", "Deep Residual Learning", 2016, 2, "ops", ["Concurrency in operators"], 0, 2, 0.2597
)
LENET = node("lenet", "Gradient-Based Learning", 1998, 3, "", [], 1, 0, 0.3701)
CATALOGUE_FIGURES = {
    "catalogue_works": 4,
    "catalogue_references": 3,
    "catalogue_survey_edges": 3,
    "catalogue_edges_among_references": 2,
    "catalogue_evidence_rows_among_references": 2,
    "catalogue_references_with_edges": 3,
    "catalogue_citing_references": 1,
    "catalogue_cited_references": 2,
}


def edge(citing, cited, provenance, excerpt):
    return {
        "source": citing,
        "target": cited,
        "key": provenance,
        "provenance": provenance,
        "evidence_source": "https://example.org/refs",
        "evidence_excerpt": excerpt,
    }


def test_it_returns_the_graph_as_node_link_json(catalogue, client):
    response = client.get("/api/graph/?format=json")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response.json() == {
        "directed": True,
        "multigraph": True,
        "graph": {"caveat": CAVEAT, "works": 3, "works_matching": 3, **CATALOGUE_FIGURES},
        "nodes": [ALEXNET, RESNET, LENET],
        "edges": [
            edge("resnet", "alexnet", "citing-paper-bibliography", "{ImageNet} Classification"),
            edge("resnet", "lenet", "reference-list-note", "Gradient-Based Learning"),
        ],
    }


def test_it_defaults_to_json_and_applies_the_works_facets(catalogue, client):
    response = client.get("/api/graph/?level=ops&year_min=2013")
    assert response.status_code == 200
    document = response.json()
    assert [n["id"] for n in document["nodes"]] == ["resnet"]
    assert document["edges"] == []
    assert document["graph"]["works_matching"] == 1


def test_it_shows_the_survey_node_and_its_edges_on_request(catalogue, client):
    document = client.get("/api/graph/?survey=1").json()
    assert [n["id"] for n in document["nodes"]] == [SURVEY, "alexnet", "resnet", "lenet"]
    assert sorted((e["source"], e["target"], e["provenance"]) for e in document["edges"]) == [
        ("bennun2018demystifying", "alexnet", "survey-reference-list"),
        ("bennun2018demystifying", "lenet", "survey-reference-list"),
        ("bennun2018demystifying", "resnet", "survey-reference-list"),
        ("resnet", "alexnet", "citing-paper-bibliography"),
        ("resnet", "lenet", "reference-list-note"),
    ]


def test_it_restricts_edges_to_a_provenance(catalogue, client):
    document = client.get("/api/graph/?provenance=reference-list-note").json()
    assert [(e["source"], e["target"]) for e in document["edges"]] == [("resnet", "lenet")]
    assert {n["id"]: n["in_degree"] for n in document["nodes"]} == {
        "alexnet": 0,
        "resnet": 0,
        "lenet": 1,
    }


def test_it_returns_an_ego_network(catalogue, client):
    document = client.get("/api/graph/?ego=alexnet&direction=forward&depth=1").json()
    assert [n["id"] for n in document["nodes"]] == ["alexnet", "resnet"]
    assert [(e["source"], e["target"]) for e in document["edges"]] == [("resnet", "alexnet")]


def test_it_writes_graphml_that_networkx_reads_back(catalogue, client):
    response = client.get("/api/graph/?format=graphml")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/graphml+xml; charset=utf-8"
    assert response["Content-Disposition"] == 'attachment; filename="citation-graph.graphml"'
    graph = nx.parse_graphml(response.content.decode())
    assert sorted(graph.nodes) == ["alexnet", "lenet", "resnet"]
    assert graph.nodes["alexnet"]["categories"] == "Convolution"
    assert "year" not in graph.nodes["lenet"] or graph.nodes["lenet"]["year"] == 1998
    assert sorted(
        (u, v, d["provenance"], d["evidence_source"]) for u, v, d in graph.edges(data=True)
    ) == [
        ("resnet", "alexnet", "citing-paper-bibliography", "https://example.org/refs"),
        ("resnet", "lenet", "reference-list-note", "https://example.org/refs"),
    ]


def test_it_writes_gexf_that_networkx_reads_back(catalogue, client):
    response = client.get("/api/graph/?format=gexf")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/gexf+xml; charset=utf-8"
    graph = nx.read_gexf(io.BytesIO(response.content))
    assert sorted(graph.nodes) == ["alexnet", "lenet", "resnet"]
    assert sorted((u, v, d["provenance"]) for u, v, d in graph.edges(data=True)) == [
        ("resnet", "alexnet", "citing-paper-bibliography"),
        ("resnet", "lenet", "reference-list-note"),
    ]


def test_it_writes_the_edges_as_csv(catalogue, client):
    response = client.get("/api/graph/?format=csv")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert list(csv.reader(io.StringIO(response.content.decode()))) == [
        ["citing", "cited", "provenance", "evidence_source", "evidence_excerpt"],
        [
            "resnet",
            "alexnet",
            "citing-paper-bibliography",
            "https://example.org/refs",
            "{ImageNet} Classification",
        ],
        [
            "resnet",
            "lenet",
            "reference-list-note",
            "https://example.org/refs",
            "Gradient-Based Learning",
        ],
    ]


@pytest.mark.parametrize(
    ("url", "errors"),
    [
        (
            "/api/graph/?format=xml",
            {"format": ["format must be one of json, graphml, gexf, csv, not 'xml'"]},
        ),
        (
            "/api/graph/?format=api",
            {"format": ["format must be one of json, graphml, gexf, csv, not 'api'"]},
        ),
        ("/api/graph/?level=nope", {"level": ["unknown code 'nope' (known: net, ops)"]}),
        ("/api/graph/?year_min=20x0", {"year_min": ["Enter a number."]}),
        ("/api/graph/?depth=4", {"depth": ["depth must be 1 or 2 or 3, not '4'"]}),
        ("/api/graph/?survey=yes", {"survey": ["survey must be 0 or 1, not 'yes'"]}),
        (
            f"/api/graph/?ego={SURVEY}",
            {
                "ego": [
                    f"ego: '{SURVEY}' is the survey, hidden by default; "
                    "add survey=1 to centre on it"
                ]
            },
        ),
        (
            "/api/graph/?provenance=hearsay",
            {
                "provenance": [
                    "provenance must be citing-paper-bibliography or "
                    "reference-list-note or secondary-index or curator, not 'hearsay'"
                ]
            },
        ),
    ],
)
def test_it_refuses_bad_graph_parameters_with_400(catalogue, client, url, errors):
    response = client.get(url)
    assert response.status_code == 400
    assert response["Content-Type"] == "application/json"
    # Each message under the parameter it is about (none under non_field_errors).
    assert response.json()["errors"] == errors


def test_it_answers_404_for_an_ego_that_names_no_work(catalogue, client):
    response = client.get("/api/graph/?ego=nope")
    assert (response.status_code, response.json()) == (
        404,
        {
            "status": 404,
            "code": "not_found",
            "detail": "ego: no work with key 'nope'",
            "errors": {},
        },
    )


def test_it_names_unknown_parameters(catalogue, client):
    response = client.get("/api/graph/?levle=ops")
    assert response.status_code == 400
    [message] = response.json()["errors"]["levle"]
    assert message.startswith("unknown parameter 'levle' (allowed: category, depth,")


def test_it_answers_the_graph_in_constant_queries(catalogue, client, django_assert_num_queries):
    # The catalogue version is read once per request (explorer/web/middleware.py) and keys the
    # response cache and the graph:
    # 1. categories; 2. graph version; 3. works with category codes; 4. citations;
    # 5. the ids of the shown works; 6. their evidence rows
    with django_assert_num_queries(6):
        assert client.get("/api/graph/?format=graphml").status_code == 200
    make_citation(catalogue["lenet"], catalogue["alexnet"])
    client.get("/api/graph/")
    # warm cache: 1. categories; 2. graph version; the whole graph's document is kept with
    # the graph's version (no shown ids, no evidence rows)
    with django_assert_num_queries(2):
        assert client.get("/api/graph/?format=json").status_code == 200
    # with facets (explorer.works.filters.WorkFilter): + 5. the level by its code; 6. the category
    # tree for its subtree; 7. the keys of the works the facets keep (the version read once)
    with django_assert_num_queries(7):
        assert client.get("/api/graph/?level=ops&q=deep").status_code == 200


# --- /api/snowball/ ----------------------------------------------------------------------------


def test_it_replays_snowballing(catalogue, client):
    response = client.get("/api/snowball/?seeds=alexnet&direction=forward&rounds=2")
    assert response.status_code == 200
    assert response.json() == {
        "seeds": ["alexnet"],
        "direction": "forward",
        "rounds_requested": 2,
        "keywords": [],
        "inclusion_filter": {},
        "provenance": None,
        "catalogue_works": 3,
        "collected": 2,
        "coverage": 0.6667,
        "saturated_at_round": 2,
        "rounds": [
            {
                "round": 0,
                "new": 1,
                "excluded": 0,
                "collected": 1,
                "coverage": 0.3333,
                "works": [
                    {
                        "key": "alexnet",
                        "title": "ImageNet Classification",
                        "year": 2012,
                        "era": "survey",
                        "reached_via": [{"kind": "seed"}],
                    }
                ],
            },
            {
                "round": 1,
                "new": 1,
                "excluded": 0,
                "collected": 2,
                "coverage": 0.6667,
                "works": [
                    {
                        "key": "resnet",
                        "title": "Deep Residual Learning",
                        "year": 2016,
                        "era": "survey",
                        "reached_via": [{"kind": "citing", "work": "alexnet"}],
                    }
                ],
            },
            {"round": 2, "new": 0, "excluded": 0, "collected": 2, "coverage": 0.6667, "works": []},
        ],
        "caveat": CAVEAT,
        "method_caveat": COLLECTION_CAVEAT,
    }


def test_it_starts_from_the_seminal_works_and_keyword_hits(catalogue, client):
    catalogue["resnet"].seminal = True
    catalogue["resnet"].save()
    document = client.get("/api/snowball/?keywords=gradient-based&rounds=1&year_max=2013").json()
    assert document["seeds"] == ["resnet"]
    assert document["inclusion_filter"] == {"year_max": "2013"}
    assert [
        (r["round"], [(w["key"], w["reached_via"]) for w in r["works"]], r["excluded"])
        for r in document["rounds"]
    ] == [
        (
            0,
            [
                ("resnet", [{"kind": "seed"}]),
                ("lenet", [{"kind": "keyword", "keyword": "gradient-based"}]),
            ],
            0,
        ),
        (1, [("alexnet", [{"kind": "cited", "work": "resnet"}])], 0),
    ]


def test_it_turns_away_works_outside_the_inclusion_filter(catalogue, client):
    document = client.get("/api/snowball/?seeds=resnet&rounds=1&category=ops-conv").json()
    assert [(r["new"], r["excluded"]) for r in document["rounds"]] == [(1, 0), (1, 1)]
    assert document["rounds"][1]["works"][0]["key"] == "alexnet"


@pytest.mark.parametrize(
    ("url", "errors"),
    [
        (
            "/api/snowball/?rounds=0",
            {"rounds": ["rounds must be a whole number from 1 to 5, not '0'"]},
        ),
        (
            "/api/snowball/?rounds=6",
            {"rounds": ["rounds must be a whole number from 1 to 5, not '6'"]},
        ),
        (
            "/api/snowball/?rounds=two",
            {"rounds": ["rounds must be a whole number from 1 to 5, not 'two'"]},
        ),
        (
            "/api/snowball/?direction=up",
            {"direction": ["direction must be backward or forward or both, not 'up'"]},
        ),
        (
            "/api/snowball/?format=csv",
            {"format": ["this endpoint answers in json only, not 'csv'"]},
        ),
    ],
)
def test_it_refuses_bad_snowball_parameters_with_400(catalogue, client, url, errors):
    response = client.get(url)
    assert response.status_code == 400
    assert response.json()["errors"] == errors


def test_it_answers_404_for_seeds_that_name_no_work(catalogue, client):
    response = client.get("/api/snowball/?seeds=alexnet,nope,ghost")
    assert response.status_code == 404
    assert response.json() == {
        "status": 404,
        "code": "not_found",
        "detail": "seeds: unknown work key(s): ghost, nope",
        "errors": {},
    }


def test_it_answers_400_for_the_survey_as_a_seed(catalogue, client):
    response = client.get("/api/snowball/?seeds=bennun2018demystifying")
    assert response.status_code == 400
    assert response.json()["errors"] == {
        "seeds": [
            "seeds: 'bennun2018demystifying' is the survey, which cites every reference: not a seed"
        ]
    }


def test_it_replays_in_constant_queries(catalogue, client, django_assert_num_queries):
    # The catalogue version is read once per request (explorer/web/middleware.py) and keys the
    # response cache and the graph:
    # 1. graph version; 2. works with category codes; 3. citations
    with django_assert_num_queries(3):
        assert client.get("/api/snowball/?seeds=alexnet&direction=both").status_code == 200
    # warm: 1. the category by its code; 2. the category tree for its subtree; 3. graph
    # version; 4. the keys of the works the inclusion filter keeps
    with django_assert_num_queries(4):
        assert client.get("/api/snowball/?seeds=resnet&category=ops").status_code == 200


# --- /api/works/<key>/related/ and /api/data-quality/ -------------------------------------------


def test_it_lists_co_cited_and_coupled_works(catalogue, client, django_assert_num_queries):
    # The catalogue version is read once per request (explorer/web/middleware.py) and keys the
    # response cache and the graph:
    # 1. graph version; 2. works with category codes; 3. citations
    with django_assert_num_queries(3):
        response = client.get("/api/works/alexnet/related/")
    assert response.status_code == 200
    assert response.json() == {
        "key": "alexnet",
        "cites": 0,
        "cited_by": 1,
        "co_citation": [
            {
                "key": "lenet",
                "title": "Gradient-Based Learning",
                "year": 1998,
                "count": 1,
                "shared": ["resnet"],
            }
        ],
        "coupling": [],
        "caveat": CAVEAT,
    }


def test_it_answers_404_for_an_unknown_work_and_400_for_a_bad_top(catalogue, client):
    response = client.get("/api/works/nope/related/")
    assert response.status_code == 404
    assert response.json() == {
        "status": 404,
        "code": "not_found",
        "detail": "No reference with key 'nope' in the catalogue.",
        "errors": {},
    }
    response = client.get("/api/works/alexnet/related/?top=0")
    assert response.status_code == 400
    assert response.json()["errors"] == {"top": ["must be a whole number from 1 to 50"]}


def shares(works: int, with_any: int, doi: int = 0, arxiv: int = 0, url: int = 0) -> list:
    counts = {"doi": doi, "arxiv_id": arxiv, "openalex_id": 0, "url": url}
    labels = {"doi": "DOI", "arxiv_id": "arXiv id", "openalex_id": "OpenAlex id", "url": "URL"}
    return {
        "works": works,
        "with_any": with_any,
        "identifiers": [
            {"identifier": name, "label": labels[name], "count": count}
            for name, count in counts.items()
        ],
    }


def evidence(fact: str, first_hand: int = 0, secondary: int = 0) -> dict:
    values = first_hand + secondary
    return {
        "fact": fact,
        "label": FACTS[fact],
        "counts": {"first-hand": first_hand, "index": 0, "secondary": secondary},
        "unsourced": 0,
        "values": values,
        "first_hand_percent": round(100 * first_hand / values) if values else None,
    }


def test_it_reports_data_quality(catalogue, client):
    make_work(
        "orphan",
        title="Orphan",
        year=2000,
        survey_ref=4,
        doi="10.1/orphan",
        field_sources={"doi": "https://api.openalex.org/works/doi:10.1/orphan"},
    )
    document = client.get("/api/data-quality/").json()
    fidelity = [document.pop(name) for name in ("cost_model_statuses", "category_statuses")]
    assert [sum(row["count"] for row in rows) for rows in fidelity] == [0, 3]
    assert document.pop("identities")["people"] == []
    assert document.pop("identifiers") == {
        "eras": [
            {"era": "survey", "label": "in the survey", **shares(5, 1, doi=1)},
            {"era": "after", "label": "after the survey", **shares(0, 0)},
            {"era": "curated", "label": "added by curators", **shares(0, 0)},
        ],
        "evidence": [evidence("identifiers", first_hand=1), evidence("bibliographic")],
    }
    # An OpenAlex record is first-hand; the five edges rest on example.org (not classified).
    assert document.pop("evidence") == {
        "kinds": ["first-hand", "index", "secondary"],
        "facts": [
            evidence("identifiers", first_hand=1),
            evidence("bibliographic"),
            evidence("result_figures"),
            evidence("result_settings"),
            evidence("placements", secondary=5),
        ],
        "all_but_placements": {
            "counts": {"first-hand": 1, "index": 0, "secondary": 0},
            "unsourced": 0,
            "values": 1,
            "first_hand_percent": 100,
        },
        "all": {
            "counts": {"first-hand": 1, "index": 0, "secondary": 5},
            "unsourced": 0,
            "values": 6,
            "first_hand_percent": 17,
        },
    }
    assert document == {
        "coverage": {
            "works": 5,
            "references": 4,
            "survey_edges": 3,
            "edges_among_references": 2,
            "evidence_rows_among_references": 2,
            "references_with_edges": 3,
            "citing_references": 1,
            "cited_references": 2,
            "provenances": {
                "citing-paper-bibliography": 1,
                "reference-list-note": 1,
                "survey-reference-list": 3,
            },
        },
        "works_without_edges": [
            {"key": "orphan", "title": "Orphan", "year": 2000, "survey_ref": 4}
        ],
        "component_sizes": [3],
        "after_survey": {
            "works": 0,
            "citing_works": 0,
            "edges": 0,
            "edges_to_survey": 0,
            "edges_among_after": 0,
            "survey_works_cited": 0,
            "provenances": {},
        },
        "caveat": CAVEAT,
    }


def test_it_refuses_writes(catalogue, client):
    assert client.post("/api/graph/").status_code == 405
    assert client.delete("/api/snowball/").status_code == 405


def test_it_documents_the_query_parameters_in_the_schema(db):
    schema = SchemaGenerator().get_schema(request=None, public=True)

    def parameters(path):
        return {p["name"] for p in schema["paths"][path]["get"]["parameters"]}

    assert parameters("/api/graph/") >= {
        "format",
        "level",
        "category",
        "year_min",
        "year_max",
        "q",
        "provenance",
        "survey",
        "ego",
        "depth",
        "direction",
    }
    assert parameters("/api/snowball/") >= {"seeds", "direction", "rounds", "keywords", "year_min"}
    assert "top" in parameters("/api/works/{key}/related/")
    format_parameter = next(
        p for p in schema["paths"]["/api/graph/"]["get"]["parameters"] if p["name"] == "format"
    )
    assert set(format_parameter["schema"]["enum"]) == {"json", "graphml", "gexf", "csv"}
