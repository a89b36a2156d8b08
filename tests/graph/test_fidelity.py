"""Issue 20: the data-quality page lists the statuses with their counts and the identity table."""

import pytest

pytestmark = pytest.mark.django_db


def test_it_lists_the_statuses_with_their_counts_and_the_identities(client, survey):
    document = client.get("/api/data-quality/").json()
    costs = {row["status"]: row["count"] for row in document["cost_model_statuses"]}
    # The survey's (20, 2, 16, 2, 7, 2) and issue 26's after it (8, 3, 0, 1, 3, 0):
    # fixtures/after_cost_models.json.
    assert costs == {
        "confirmed": 20 + 8,  # issue 25: the ring and Rabenseifner allreduce confirmed
        "partial": 2 + 3,
        "recalled": 16 + 0,
        "standard": 2 + 1,
        "derived": 7 + 3,
        "doubtful": 2,
    }
    categories = {row["status"]: row["count"] for row in document["category_statuses"]}
    assert categories == {
        "confirmed": 26,
        "recalled": 10,
        "unconfirmed": 7,
        "grouping": 15,
        "after-survey": 5,
    }
    identities = document["identities"]
    # The survey's 13 people (27 spellings) and the table extended to the works after it
    # (issue 28): the same rule over both eras' spellings, over the 102 works after it (issue 37);
    # five people fewer once their names were read as the authors' own pages print them (Lin et
    # al.'s bibtex, USENIX's SwitchML page): one spelling each, nothing left to link. Issue 45's
    # DiLoCo links Marc'Aurelio Ranzato to the survey's M. Ranzato.
    assert (len(identities["people"]), identities["spellings_linked"]) == (71, 152)
    # MegaScale's full author list (USENIX's page) adds two groups kept apart (X. Jia, S. Zhao).
    # Issue 45: Hanayo adds one (H. Zhou, Haotian Zhou, ...), Zero Bubble two (G. Huang, M. Lin)
    # and Ziming Liu joins Z. Liu's group.
    assert (len(identities["left_apart"]), identities["spellings_left_apart"]) == (90, 215)
    people = {person["name"]: person["spellings"] for person in identities["people"]}
    assert people["Quoc V. Le"] == ["Q. Le", "Q. V Le", "Q. V. Le", "Quoc Le", "Quoc V. Le"]
    assert people["Gregory R. Ganger"] == ["G. R. Ganger", "Gregory R. Ganger"]
    assert people["Dehao Chen"] == ["Chen, Dehao", "Dehao Chen"]
    assert people["Christopher Ré"] == ["C. Re", "C. Ré", "Christopher Ré"]  # FlashAttention
    page = client.get("/data-quality/").content.decode()
    assert '<span class="status status-derived">derived here</span></td><td>10</td>' in page
    assert '<span class="status status-grouping">grouping added here</span></td><td>15</td>' in page
    assert "152 spellings are linked to 71 people" in page
    assert "X. Chen / X. W. Chen / Xie Chen" in page
    assert "S. L. Smith / Shaden Smith" in page
