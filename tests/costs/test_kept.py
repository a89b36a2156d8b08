"""The /costs/ plots kept per version and per the parameters each plot reads."""

import pytest

from explorer.costs import kept, params
from explorer.costs.plots import PLOT_NAMES, build_plot
from explorer.costs.records import ParameterError, cost_formulas


def test_it_keys_each_plot_on_the_parameters_it_reads_only():
    default = {name: params.plot_query_key(name, {}) for name in PLOT_NAMES}
    with_p = {name: params.plot_query_key(name, {"P": ["16"]}) for name in PLOT_NAMES}
    changed = [name for name in PLOT_NAMES if default[name] != with_p[name]]
    assert changed == ["allreduce-p", "allreduce-m"]
    swept = {"sweep": ["C_in"], "N": ["64"]}
    assert params.plot_query_key("parallelism", swept) == '[["N",["64"]],["sweep",["C_in"]]]'
    assert params.plot_query_key("wd-plane", swept) == '[["N",["64"]]]'


def test_it_reads_every_parameter_of_the_page_in_some_plot():
    read = {name for names in params.PLOT_PARAMETERS.values() for name in names}
    assert read == params.PAGE_PARAMETERS and set(params.PLOT_PARAMETERS) == set(PLOT_NAMES)


@pytest.mark.parametrize(
    "query",
    [{}, {"P": ["16"]}, {"preset": ["vgg16-conv3"], "sweep": ["C_in"], "ops": ["conv-fft"]}],
)
def test_it_keeps_the_plots_the_query_would_draw(survey, query):
    formulas = cost_formulas()
    for _ in range(2):  # computed, then kept
        for name in PLOT_NAMES:
            assert kept.plot(name, query) == build_plot(name, formulas, query)


def test_it_keeps_no_bad_query(survey):
    for _ in range(2):
        with pytest.raises(ParameterError, match="P must be"):
            kept.plot("allreduce-p", {"P": ["0"]})
