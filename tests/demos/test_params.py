import json
import math

import pytest

from explorer.demos import DEMOS, Demo, Param, ParamError, schema, validate_params
from explorer.demos.base import SEED

PIPELINE = DEMOS["pipeline-bubble"]


def make_demo(*params: Param) -> Demo:
    return Demo("x", "X", 1, "operators", (), (), "", "", params, lambda params, rng: {})


def test_it_fills_defaults_and_sorts_keys():
    params = validate_params(PIPELINE, {"M": 16})

    assert params == {"M": 16, "P": 4, "backward_cost": 2.0, "seed": 0}
    assert list(params) == sorted(params)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ({"P": "8"}, 8),
        ({"P": " 8 "}, 8),
        ({"P": "8.0"}, 8),
        ({"P": 8.0}, 8),
        ({"P": 8}, 8),
    ],
)
def test_it_accepts_query_strings_and_json_numbers_for_integers(raw, expected):
    assert validate_params(PIPELINE, raw)["P"] == expected


def test_it_accepts_numeric_strings_for_floats():
    assert validate_params(PIPELINE, {"backward_cost": "0.5"})["backward_cost"] == 0.5
    assert validate_params(PIPELINE, {"backward_cost": 1})["backward_cost"] == 1.0


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"P": 5000}, "P must be between 1 and 64 (got 5000)"),
        ({"P": 0}, "P must be between 1 and 64 (got 0)"),
        ({"P": "abc"}, "P must be a whole number between 1 and 64 (got 'abc')"),
        ({"P": 2.5}, "P must be a whole number between 1 and 64 (got 2.5)"),
        ({"P": True}, "P must be a whole number between 1 and 64 (got 'True')"),
        ({"P": None}, "P must be a whole number between 1 and 64 (got 'None')"),
        ({"P": [4]}, "P must be a whole number between 1 and 64 (got '[4]')"),
        ({"P": "nan"}, "P must be a whole number between 1 and 64 (got 'nan')"),
        ({"backward_cost": math.nan}, "backward_cost must be a number between 0 and 4 (got nan)"),
        ({"backward_cost": "inf"}, "backward_cost must be a number between 0 and 4 (got 'inf')"),
        ({"backward_cost": -1}, "backward_cost must be between 0 and 4 (got -1)"),
        ({"seed": 2**31}, f"seed must be between 0 and {2**31 - 1} (got {2**31})"),
    ],
)
def test_it_refuses_bad_values_naming_the_parameter_and_bounds(raw, message):
    with pytest.raises(ParamError) as caught:
        validate_params(PIPELINE, raw)

    assert str(caught.value) == message


def test_it_refuses_unknown_parameters_listing_the_known_ones():
    with pytest.raises(ParamError) as caught:
        validate_params(PIPELINE, {"x": 1, "P": 2})

    assert str(caught.value) == "unknown parameter 'x' (allowed: M, P, backward_cost, seed)"


def test_it_checks_choices_and_booleans():
    demo = make_demo(
        Param("mode", "choice", "a", choices=("a", "b")),
        Param("flag", "bool", False),
        SEED,
    )

    assert validate_params(demo, {"mode": "b", "flag": "true"}) == {
        "flag": True,
        "mode": "b",
        "seed": 0,
    }
    assert validate_params(demo, {"flag": "0"})["flag"] is False
    with pytest.raises(ParamError, match=r"^mode must be one of 'a', 'b' \(got 'c'\)$"):
        validate_params(demo, {"mode": "c"})
    with pytest.raises(ParamError, match=r"^flag must be true or false \(got 'maybe'\)$"):
        validate_params(demo, {"flag": "maybe"})


def test_it_rejects_bad_declarations_at_import_time():
    with pytest.raises(TypeError, match="default"):
        Param("P", "int", 100, 1, 10)
    with pytest.raises(TypeError, match="min and max"):
        Param("P", "int", 1)
    with pytest.raises(TypeError, match="seed"):
        make_demo(Param("P", "int", 1, 1, 10))


def test_it_describes_a_demo_as_json():
    document = schema(PIPELINE)

    assert json.loads(json.dumps(document)) == document
    assert {key: document[key] for key in ("slug", "version", "level", "techniques", "works")} == {
        "slug": "pipeline-bubble",
        "version": 2,  # its tables say "simulated" since version 2
        "level": "networks",
        "techniques": ["pipelining"],
        "works": [62],
    }
    assert document["params"] == [
        {
            "name": "P",
            "type": "int",
            "default": 4,
            "min": 1,
            "max": 64,
            "choices": None,
            "help": "pipeline stages",
            "unit": None,
        },
        {
            "name": "M",
            "type": "int",
            "default": 8,
            "min": 1,
            "max": 1024,
            "choices": None,
            "help": "micro-batches per minibatch",
            "unit": None,
        },
        {
            "name": "backward_cost",
            "type": "float",
            "default": 2.0,
            "min": 0.0,
            "max": 4.0,
            "choices": None,
            "help": "time of a backward pass relative to a forward pass (0: inference only)",
            "unit": None,
        },
        {
            "name": "seed",
            "type": "int",
            "default": 0,
            "min": 0,
            "max": 2**31 - 1,
            "choices": None,
            "help": "random seed; the same seed gives the same result",
            "unit": None,
        },
    ]


@pytest.mark.parametrize("slug", list(DEMOS))
def test_it_gives_every_demo_a_valid_schema_with_a_seed(slug):
    document = schema(DEMOS[slug])

    assert json.loads(json.dumps(document)) == document
    assert document["summary"] and document["look_for"] and document["title"]
    assert {"name": "seed", "default": 0, "min": 0, "max": 2**31 - 1}.items() <= next(
        param for param in document["params"] if param["name"] == "seed"
    ).items()
    assert validate_params(DEMOS[slug], {}) == {
        p["name"]: p["default"] for p in sorted(document["params"], key=lambda p: p["name"])
    }
