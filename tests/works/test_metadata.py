"""Issue 28: a work page embeds its metadata as reference managers read it (Highwire Press
`citation_*` tags, schema.org JSON-LD), lists carry COinS, and identifiers are links with their
sources."""

import json
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import parse_qsl

import bibtexparser
import pytest

from catalogue import metadata
from catalogue.models import Work


class EmbeddedMetadata(HTMLParser):
    """What Zotero's "Embedded Metadata" translator reads: every <meta name="citation_...">
    (repeated names kept in order), the JSON-LD scripts, and the COinS spans."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, str]] = []
        self.json_ld: list[dict] = []
        self.coins: list[str] = []
        self._in_json_ld = False

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "meta" and attributes.get("name", "").startswith("citation_"):
            self.tags.append((attributes["name"], attributes.get("content", "")))
        if tag == "script" and attributes.get("type") == "application/ld+json":
            self._in_json_ld = True
        if tag == "span" and "Z3988" in attributes.get("class", "").split():
            self.coins.append(attributes["title"])

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_json_ld = False

    def handle_data(self, data):
        if self._in_json_ld:
            self.json_ld.append(json.loads(data))


def read(client, url: str) -> EmbeddedMetadata:
    response = client.get(url)
    assert response.status_code == 200
    parser = EmbeddedMetadata()
    parser.feed(response.content.decode())
    return parser


def test_it_prints_the_tags_of_a_journal_article():
    fields = metadata.WorkFields(
        title="{Demystifying Parallel and Distributed Deep Learning}",
        authors=["Tal Ben-Nun", "Torsten Hoefler"],
        year=2019,
        entry_type="article",
        journal="ACM Computing Surveys",
        volume="52",
        number="4",
        pages="65:1--65:43",
        publisher="ACM",
        doi="10.1145/3320060",
        arxiv_id="1802.09941",
    )
    assert metadata.citation_meta(fields, "http://x/works/k/") == [
        ("citation_title", "Demystifying Parallel and Distributed Deep Learning"),
        ("citation_author", "Tal Ben-Nun"),
        ("citation_author", "Torsten Hoefler"),
        ("citation_publication_date", "2019"),
        ("citation_journal_title", "ACM Computing Surveys"),
        ("citation_volume", "52"),
        ("citation_issue", "4"),
        ("citation_firstpage", "65:1"),
        ("citation_lastpage", "65:43"),
        ("citation_publisher", "ACM"),
        ("citation_doi", "10.1145/3320060"),
        ("citation_arxiv_id", "1802.09941"),
        ("citation_abstract_html_url", "http://x/works/k/"),
    ]


def test_it_never_lets_a_title_close_the_json_ld_script():
    text = metadata.json_ld({"name": "</script><b>&"})
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text) == {"name": "</script><b>&"}


@pytest.mark.django_db
def test_a_work_page_carries_the_tags_zotero_reads_and_they_match_the_record(client, survey):
    work = Work.objects.get(key="bennun2018demystifying")
    page = read(client, "/works/bennun2018demystifying/")
    names = [a.author.name for a in work.authorships.select_related("author")]
    assert page.tags == [
        ("citation_title", work.title.strip("{}")),
        *[("citation_author", name) for name in names],
        ("citation_publication_date", str(work.year)),
        ("citation_journal_title", work.journal),
        ("citation_volume", work.volume),
        ("citation_issue", work.number),
        ("citation_firstpage", "65:1"),
        ("citation_lastpage", "65:43"),
        ("citation_publisher", work.publisher),
        ("citation_doi", work.doi),
        ("citation_arxiv_id", work.arxiv_id),
        ("citation_abstract_html_url", "http://testserver/works/bennun2018demystifying/"),
    ]
    [article] = page.json_ld
    assert article["@type"] == "ScholarlyArticle"
    assert [author["name"] for author in article["author"]] == names
    assert article["identifier"] == [
        {"@type": "PropertyValue", "propertyID": "DOI", "value": "10.1145/3320060"},
        {"@type": "PropertyValue", "propertyID": "arXiv", "value": "1802.09941"},
        {"@type": "PropertyValue", "propertyID": "OpenAlex", "value": "W2972087877"},
    ]


@pytest.mark.django_db
def test_identifiers_read_on_stored_pages_are_links_with_their_source(client, survey):
    work = Work.objects.get(key="bengio1994learning")
    assert (work.doi, work.openalex_id) == ("10.1109/72.279181", "W2107878631")
    assert work.field_sources["openalex"] == "https://www.pubindex.ai/paper/W2107878631"
    html = client.get("/works/bengio1994learning/").content.decode()
    assert '<a href="https://doi.org/10.1109/72.279181">10.1109/72.279181</a>' in html
    assert '<a href="https://openalex.org/W2107878631">W2107878631</a>' in html
    assert 'read on <a href="https://www.pubindex.ai/paper/W2107878631"' in html


@pytest.mark.django_db
def test_a_list_carries_one_coins_span_per_work(client, survey):
    page = read(client, "/works/?q=hogwild")
    assert page.coins
    fields = dict(parse_qsl(page.coins[0]))
    assert fields["ctx_ver"] == "Z39.88-2004"
    assert "hogwild" in fields.get("rft.atitle", fields.get("rft.title", "")).lower()


def expected_survey_shares() -> dict[str, int]:
    """The survey's works holding each identifier, counted in the fixtures themselves: what
    survey.bib gives, and what identifiers.json adds where survey.bib leaves a field empty."""
    fixtures = Path(__file__).resolve().parents[2] / "fixtures"
    identifiers = json.loads((fixtures / "identifiers.json").read_text(encoding="utf-8"))
    library = bibtexparser.parse_string((fixtures / "survey.bib").read_text(encoding="utf-8"))
    counts = dict.fromkeys(["doi", "arxiv_id", "openalex_id", "url", "any", "seed"], 0)
    for entry in library.entries:
        fields = {f.key.lower(): str(f.value) for f in entry.fields}
        read = identifiers.get(entry.key, {})
        held = {
            "doi": fields.get("doi") or read.get("doi"),
            "arxiv_id": fields.get("eprint") or read.get("arxiv"),
            "openalex_id": read.get("openalex"),
            "url": fields.get("url") or read.get("landing_url"),
        }
        for name, value in held.items():
            counts[name] += bool(value)
        counts["any"] += any(held.values())
        counts["seed"] += sum(bool(fields.get(name)) for name in ("doi", "eprint", "url"))
    return counts


@pytest.mark.django_db
def test_data_quality_and_sources_give_the_share_of_each_identifier(client, survey):
    expected = expected_survey_shares()
    report = Work.objects.identifier_report()
    survey_era, after_era, curated_era = report["eras"]
    assert (curated_era["era"], curated_era["works"]) == ("curated", 0)
    assert (survey_era["works"], survey_era["with_any"]) == (270, expected["any"])
    assert {row["identifier"]: row["count"] for row in survey_era["identifiers"]} == {
        name: expected[name] for name in ("doi", "arxiv_id", "openalex_id", "url")
    }
    assert (after_era["works"], after_era["with_any"]) == (106, 106)
    # The identifiers the reference list printed have a recorded page now (issue 37): none is
    # left without one.
    identifiers = report["evidence"][0]
    assert (identifiers["fact"], identifiers["unsourced"], expected["seed"]) == (
        "identifiers",
        0,
        80,
    )
    share = round(100 * expected["any"] / 270)
    for url in ("/data-quality/", "/sources/"):
        html = client.get(url).content.decode()
        assert '<h2 id="identifiers">Identifiers</h2>' in html
        assert "<td>in the survey</td><td>270</td>" in html
        assert f"{expected['any']} ({share}%)" in html
