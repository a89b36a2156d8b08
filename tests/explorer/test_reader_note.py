"""The reader-note tag links the source keys and the facts record, and never puts a link inside
a link's title attribute (the title of S3-S10 names "the facts record")."""

import re

import pytest

from explorer.templatetags.explorer_tags import reader_note

LINK_IN_ATTRIBUTE = re.compile(r'title="[^"]*<a')


def test_it_links_a_source_key_and_the_facts_record_once_each():
    html = str(reader_note("S3 (FACTS.md, confirmed)"))
    assert html == (
        '<a href="/sources/#s3" title="a source of the facts record">S3</a> '
        '(<a href="/sources/#facts">the facts record</a>, confirmed)'
    )


@pytest.mark.parametrize("number", range(1, 11))
def test_it_puts_no_link_inside_a_title(number):
    assert not LINK_IN_ATTRIBUTE.search(str(reader_note(f"S{number} and the facts record")))


@pytest.mark.django_db
@pytest.mark.parametrize("url", ["/works/amodei2016deep/", "/snowball/"])
def test_the_pages_put_no_link_inside_a_title(client, survey, url):
    response = client.get(url)
    assert response.status_code == 200
    html = response.content.decode()
    assert 'title="a source of the facts record">S' in html
    assert not LINK_IN_ATTRIBUTE.search(html)
