"""Issue 20, fidelity: statuses that say no more than their sources (database rules)."""

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from catalogue.models import FormulaStatus
from tests.helpers import make_category, make_cost_model, make_technique

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("status", ["derived", "doubtful"])
def test_it_refuses_a_derived_or_doubtful_formula_without_its_reason(status):
    technique = make_technique("t", make_category("ops"))
    model = make_cost_model(technique, status=status, status_note="Derived here: W = N·C.")
    model.status_note = " "
    with pytest.raises(ValidationError, match="derivation"):
        model.full_clean()
    with pytest.raises(IntegrityError), transaction.atomic():
        make_cost_model(technique, label="Other", status=status, status_note="")


def test_it_has_words_for_derived_here_and_doubtful():
    assert FormulaStatus("derived").label == "derived here"
    assert FormulaStatus("doubtful").label == "doubtful"
