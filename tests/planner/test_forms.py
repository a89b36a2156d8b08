"""What a hostile-input sweep of the planner found: each is a 400 naming the parameter at fault
(no 500, no guess from a message's words, no value echoed at length)."""

import pytest

pytestmark = pytest.mark.django_db


def errors_of(client, query: str) -> dict:
    response = client.get(f"/api/planner/?{query}")
    assert response.status_code == 400, response.content[:300]
    body = response.json()
    assert body["code"] == "invalid"
    return body["errors"]


def test_it_names_format_when_it_is_not_json(client, survey):
    assert errors_of(client, "format=xml") == {"format": ["format must be one of json (got 'xml')"]}


def test_it_names_the_parameter_holding_a_nul_byte(client, survey):
    assert errors_of(client, "P=%00") == {"P": ["contains a NUL byte (%00)"]}


def test_it_blames_a_pinned_pp_that_cannot_be_laid_out_on_pp(client, survey):
    errors = errors_of(client, "network=transformer&layers=4&P=8&pp=8")
    assert errors == {"pp": ["pp must be at most the network's layers (4): one per stage"]}


def test_it_refuses_transformer_parameters_with_a_cnn(client, survey):
    errors = errors_of(client, "network=resnet-50&hidden=1024&tp=2")
    assert errors == {
        "hidden": ["hidden applies to transformer networks, not resnet-50"],
        "tp": ["tp applies to transformer networks, not resnet-50"],
    }


def test_it_refuses_a_micro_batch_larger_than_the_batch(client, survey):
    errors = errors_of(client, "network=gpt2-xl&batch=8&micro_batch_size=16")
    assert list(errors) == ["micro_batch_size"]
    assert errors["micro_batch_size"][0].startswith("micro_batch_size must be at most batch (8)")


@pytest.mark.parametrize("digits", ["\u0663\u0662", "\uff13\uff12"])  # ٣٢ and ３２
def test_it_does_not_read_other_scripts_digits_as_numbers(client, survey, digits):
    assert list(errors_of(client, f"P={digits}")) == ["P"]


def test_it_cuts_a_long_value_in_its_messages(client, survey):
    response = client.get("/api/planner/", {"network": "x" * 10_000})
    assert response.status_code == 400
    assert len(response.content) < 2_000
    [message] = response.json()["errors"]["network"]
    assert message.endswith("(got 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…')")


def test_the_page_refuses_what_the_api_refuses(client, survey):
    response = client.get("/planner/?network=resnet-50&layers=12")
    assert response.status_code == 400
    message = "layers: layers applies to transformer networks, not resnet-50"
    assert message in response.content.decode()


def test_it_takes_the_defaults_the_page_sends_with_a_cnn(client, survey):
    """The planner's form shows micro_batch_size=1 and zero=1 whatever the network."""
    response = client.get("/api/planner/?network=resnet-50&micro_batch_size=1&zero=1")
    assert response.status_code == 200
