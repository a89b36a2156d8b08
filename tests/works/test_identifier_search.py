"""Issue 28: a DOI, an arXiv id or an OpenAlex id typed in a search finds its work."""

import pytest

from catalogue.models import Work
from catalogue.search import identifier


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("10.1109/72.279181", ("doi", "10.1109/72.279181")),
        (" https://doi.org/10.1145/3320060 ", ("doi", "10.1145/3320060")),
        ("doi:10.1145/3320060", ("doi", "10.1145/3320060")),
        ("1802.09941", ("arxiv_id", "1802.09941")),
        ("arXiv:1802.09941v2", ("arxiv_id", "1802.09941")),
        ("https://arxiv.org/abs/1406.1078", ("arxiv_id", "1406.1078")),
        ("w2107878631", ("openalex_id", "W2107878631")),
        ("pipelining", None),
        ("10.1109 pipelining", None),
    ],
)
def test_it_knows_an_identifier_when_it_sees_one(text, found):
    assert identifier(text) == found


def keys(client, url: str) -> list[str]:
    response = client.get(url)
    assert response.status_code == 200, response.content
    return [work["key"] for work in response.json()["results"]]


@pytest.mark.django_db
def test_a_doi_or_an_arxiv_id_finds_its_work(client, survey):
    assert keys(client, "/api/works/?q=10.1109/72.279181") == ["bengio1994learning"]
    assert keys(client, "/api/works/?q=10.1109/CVPR.2009.5206848") == ["deng2009imagenet"]
    assert keys(client, "/api/works/?q=arXiv:1802.09941v2") == ["bennun2018demystifying"]
    assert keys(client, "/api/works/?q=W2107878631") == ["bengio1994learning"]
    assert keys(client, "/api/works/?q=2104.04473&era=after") == ["narayanan2021efficient"]
    html = client.get("/works/?q=https://doi.org/10.3115/v1/d14-1179").content.decode()
    assert 'href="/works/cho2014learning/"' in html


@pytest.mark.django_db
def test_a_search_in_one_era_says_how_many_works_of_the_other_match(client, survey):
    html = client.get("/works/?q=pipelining").content.decode()
    after = Work.objects.after_survey().search("pipelining").count()
    assert after > 0
    assert (
        f'<p class="other-era"><strong>{after}</strong> works after the survey match this '
        f'search too: <a href="?q=pipelining&amp;era=after">show them</a>.</p>'
    ) in html
    html = client.get("/works/?q=pipelining&era=after").content.decode()
    survey_count = Work.objects.in_survey().search("pipelining").count()
    assert f"<strong>{survey_count}</strong> works in the survey match this search" in html
    assert 'class="other-era"' not in client.get("/works/?q=pipelining&era=all").content.decode()
    assert 'class="other-era"' not in client.get("/works/").content.decode()
