"""How the admin names a work in its lists, choosers and messages."""

from catalogue.models import Work


def test_a_work_is_named_as_a_reader_reads_its_title():
    # The title's BibTeX braces and accents are markup, not part of the name.
    assert str(Work(key="dubey2024llama", title="{The Llama 3 Herd of Models}")) == (
        "dubey2024llama: The Llama 3 Herd of Models"
    )
    # Cut at 80 characters of what a reader reads, not of the markup, with an ellipsis.
    assert (
        str(Work(key="x", title='Le{\\"o}n {GPU}s ' + "a" * 90)) == "x: Leön GPUs " + "a" * 69 + "…"
    )
    # At a word where one is near.
    long_title = "Training " + "very " * 20 + "large models"
    assert str(Work(key="y", title=long_title)) == "y: Training " + "very " * 13 + "very…"
