"""Issue 37 item 1: one registry classifies every recorded source address as first-hand, index
or secondary, by host and, where one host holds several kinds, by path (pure, no database)."""

import pytest

from catalogue.source_kinds import (
    FIRST_HAND,
    INDEX,
    KINDS,
    SECONDARY,
    classify,
    evidence_row,
    kind_counts,
    source_kind,
)


@pytest.mark.parametrize(
    "url",
    [
        "https://arxiv.org/abs/1706.02677",
        "https://export.arxiv.org/abs/1706.02677v2",
        "https://ar5iv.labs.arxiv.org/html/2104.04473",
        "https://doi.org/10.1109/5.726791",
        "https://api.openalex.org/works/doi:10.1145/3320060",
        "https://openalex.org/W2112796928",
        "https://dblp.org/rec/conf/sc/NarayananSCLPKV21",
        "https://papers.nips.cc/paper/2012/hash/6aca9700-Abstract.html",
        "https://proceedings.mlr.press/v97/huang19a.html",
        "https://www.usenix.org/conference/atc21/presentation/ren-jie",
        "https://dl.acm.org/doi/10.1145/3458817.3476209",
        "https://aclanthology.org/D17-1045/",
        "http://www.nowpublishers.com/article/Details/MAL-016",
        "https://github.com/acl-org/acl-anthology/blob/6e57792c400648ad52a33a4493172ee1fb5680e3/data/xml/D14.xml",
        "http://stanford.edu/~jduchi/projects/AgarwalDu11.html",
        "https://www.microsoft.com/en-us/research/publication/zero/",
        "https://github.com/NVIDIA/Megatron-LM/blob/0123456789abcdef0123456789abcdef01234567/README.md",
        "https://github.com/mlcommons/training_results_v1.0/tree/cf2c1b3/NVIDIA/results",
        "https://mlcommons.org/benchmarks/training/",
        "https://developer.nvidia.com/facebook-trains-imagenet-1-hour",
    ],
)
def test_it_calls_publishers_arxiv_records_authors_and_vendors_first_hand(url):
    assert source_kind(url) == FIRST_HAND


@pytest.mark.parametrize(
    "url",
    [
        "https://scholar.archive.org/work/kntf5h3kifhdfdcbkpwikttbaa",
        "https://mlanthology.org/icml/2019/huang2019icml/",
        "https://researchr.org/publication/RajbhandariRRH20",
        "https://katalog.lib.cas.cz/KNAV/EdsRecord/edsarx,edsarx.2006.16668",
        "https://www.semanticscholar.org/paper/abc",
    ],
)
def test_it_calls_catalogues_and_anthologies_an_index(url):
    assert source_kind(url) == INDEX


@pytest.mark.parametrize(
    ("url", "what"),
    [
        ("https://tomesphere.com/paper/1704.05021", "aggregator, summary or mirror"),
        ("https://citegraph.io/paper/6189e6d05244ab9dcb76e5ae", "aggregator, summary or mirror"),
        ("https://www.researchtrend.ai/papers/1811.10792", "aggregator, summary or mirror"),
        ("https://summarizepaper.com/en/tree/2203.12533v1", "aggregator, summary or mirror"),
        ("https://papers.cool/arxiv/1706.02677", "aggregator, summary or mirror"),
        ("https://huggingface.co/papers/1802.09941", "aggregator, summary or mirror"),
        ("https://arcxiv.org/abs/2201.11990", "look-alike of arxiv.org (not arXiv)"),
        (
            "https://object.cloud.sdsc.edu/v1/AUTH_x/ml-papers-txt/ICLR/2019/local_sgd.txt",
            "a third party's text copy of a paper (mirror)",
        ),
        (
            "https://hal.inria.fr/hal-00921626v1/html_references",
            "another paper's reference list (a third party citing it)",
        ),
        ("http://120.26.44.124:3004/paper/1", "bare IP address (no publisher)"),
        ("http://[2001:db8::1]/paper", "bare IP address (no publisher)"),
        ("https://never-heard-of.example/paper", "host not classified yet"),
        ("not a url", "host not classified yet"),
    ],
)
def test_aggregators_mirrors_look_alikes_ips_and_unknown_hosts_are_secondary(url, what):
    assert classify(url).kind == SECONDARY
    assert classify(url).what == what


def test_a_look_alike_host_is_not_a_subdomain_of_what_it_imitates():
    assert source_kind("https://arxiv.org.example.com/abs/1") == SECONDARY
    assert source_kind("https://notarxiv.org/abs/1") == SECONDARY
    assert source_kind("https://www.arxiv.org/abs/1") == FIRST_HAND
    # A fully qualified name with its trailing dot is the same host.
    assert source_kind("http://arxiv.org./abs/1708.04728") == FIRST_HAND
    assert source_kind("https://tomesphere.com./paper/1") == SECONDARY


def test_a_repository_is_first_hand_only_when_the_authors_and_pinned_to_a_commit():
    pinned = "https://github.com/NVIDIA/Megatron-LM/blob/3c92fa9/README.md"
    assert source_kind(pinned) == FIRST_HAND
    branch = classify("https://github.com/NVIDIA/Megatron-LM/blob/main/README.md")
    assert branch.kind == SECONDARY and branch.what.endswith("at no pinned commit")
    assert source_kind("https://github.com/mlcommons") == SECONDARY
    # A third party's repository, pinned or not; a repository the registry does not name.
    notes = "https://github.com/JackonYang/paper-reading/blob/d4b81fc5af34d555f12135a83c09915801e1913e/a.md"
    assert source_kind(notes) == SECONDARY
    assert source_kind("https://github.com/someone/notes/blob/d4b81fc/a.md") == SECONDARY


def test_a_repository_entry_matches_its_own_files_only():
    assert classify("https://github.com/Apache/MXNet-Site/blob/abc1234/README.md").what == (
        "a third party's repository (reading list, notes, docs citing the work)"
    )
    # Another repository whose name extends it, the same path on another host.
    assert classify("https://github.com/apache/mxnet-site2/blob/abc1234/a.md").what == (
        "host not classified yet"
    )
    assert classify("https://gitlab.com/apache/mxnet-site/blob/abc/a.md").what == (
        "host not classified yet"
    )


def test_the_most_specific_entry_wins():
    # mlcommons.org (first-hand) over nothing; github.com/NVIDIA over the generic github.com
    assert classify("https://github.com/NVIDIA/apex/blob/0123abc/README.md").kind == FIRST_HAND
    # One university host, two kinds by path: its technical reports, an unnamed page.
    reports = "http://www2.eecs.berkeley.edu/Pubs/TechRpts/2020/EECS-2020-18.html"
    assert classify(reports).kind == FIRST_HAND
    assert classify("https://www2.eecs.berkeley.edu/Courses/CS267/").kind == SECONDARY


@pytest.mark.parametrize(
    ("url", "what"),
    [
        ("https://ui.adsabs.harvard.edu/abs/2023arXiv230709288T", "bibliographic database"),
        ("https://dspace.mit.edu/handle/1721.1/134932", "institutional repository"),
        ("https://oar.princeton.edu/handle/88435/pr1m24b", "institutional repository"),
        ("https://scholars.duke.edu/publication/1497396", "institutional repository"),
        ("https://experts.illinois.edu/en/publications/logp", "institutional repository"),
        ("https://lanlexperts.elsevierpure.com/en/publications/x", "institutional repository"),
        ("https://pure.itu.dk/en/publications/bloom", "institutional repository"),
        ("https://www.dare.uva.nl/id/7e68e71b", "institutional repository"),
    ],
)
def test_an_index_is_an_index_at_any_domain(url, what):
    """Issue 45 item 3: NASA ADS and institutional repositories are indexes, at .edu too."""
    assert classify(url).kind == INDEX
    assert classify(url).what.startswith(what)


def test_a_university_domain_alone_makes_no_host_first_hand():
    assert classify("https://some-repository.example.edu/record/1").kind == SECONDARY
    assert classify("https://stanford.edu/~someone-else/paper.html").kind == SECONDARY
    # Named labs and the authors' own pages are first-hand by name.
    assert classify("https://amplab.cs.berkeley.edu/publication/x/").kind == FIRST_HAND
    assert classify("https://web.stanford.edu/~boyd/papers/gossip_infocom.html").kind == FIRST_HAND


def test_it_counts_and_shares_by_kind():
    urls = ["https://arxiv.org/abs/1", "https://tomesphere.com/x", "", "https://mlanthology.org/y"]
    assert kind_counts(urls) == {FIRST_HAND: 1, INDEX: 1, SECONDARY: 1}
    assert evidence_row("identifiers", urls, unsourced=1) == {
        "fact": "identifiers",
        "label": "identifiers (DOI, arXiv id, OpenAlex id, landing page)",
        "counts": {FIRST_HAND: 1, INDEX: 1, SECONDARY: 1},
        "unsourced": 1,
        "values": 4,
        "first_hand_percent": 25,
    }
    assert evidence_row("placements", [])["first_hand_percent"] is None
    assert KINDS == (FIRST_HAND, INDEX, SECONDARY)


@pytest.mark.parametrize(
    "url",
    [
        "https://github.com/lisa-lab/DeepLearningTutorials/blob/11c4651/doc/references.txt",
        "https://github.com/torch/torch7/blob/814ea4a/README.md",
        "https://github.com/Reference-LAPACK/lapack/blob/bbc0262/CMAKE/FindBLAS.cmake",
        "https://github.com/intel/nn-hal/blob/d51e10e/README.md",
        "https://github.com/petuum-inc/poseidon-release/blob/abc8297/index.md",
        "https://github.com/mlresearch/v9/blob/7415b43/_posts/2010-03-31-glorot10a.md",
        "https://github.com/mlresearch/v37/blob/a171729/_posts/2015-06-01-gupta15.md",
        "https://github.com/andravin/wincnn/blob/c2bf630/FAQ.md",
        "https://github.com/sixin-zh/mpiT/blob/c359666/README.md",
        # Authors' own sites and code (identifiers pass idsD).
        "https://github.com/jimmylba/jimmylba.github.io/blob/7c9c63ceeadb1f90bab69d090d9a6bc0b9d95c23/index.html#L52",
        "https://github.com/quark0/quark0.github.io/blob/287265306c783f0c41c446f2e5569ad5554dbdb0/index.html#L112",
        "https://github.com/ryotat/ryotat.github.io/blob/14921c7b203cc57cafbfc4523ad6794960acee31/index.html#L104",
        "https://github.com/omry/yadan.net/blob/209bb80f663a4085107cc146ec63688653802756/index.html#L168",
        "https://github.com/akrizhevsky/cuda-convnet2/blob/1bf82292a35079064396e6859825ae0d5208843f/MultiGPU.md#L307",
    ],
)
def test_a_lab_s_a_project_s_and_an_author_s_own_repositories_are_first_hand_at_a_commit(url):
    assert source_kind(url) == FIRST_HAND
    assert source_kind(url.replace(url.split("/")[6], "master")) == SECONDARY


def test_an_authors_own_site_repository_is_first_hand_at_a_pinned_commit():
    site = "https://github.com/tbennun/tbennun.github.io/blob/{}/index.html#L307"
    assert source_kind(site.format("c9cb9932ea3c15e31c2bca8db322b1081f6a44cd")) == FIRST_HAND
    assert source_kind(site.format("master")) == SECONDARY
    # Another repository of the same owner is not the site the registry names.
    assert source_kind("https://github.com/tbennun/other/blob/c9cb993/a.md") == SECONDARY


def test_the_workshop_page_of_a_co_authors_talk_read_in_pass_idsG_is_first_hand():
    talk = "http://fjml.marcocuturi.net/2017/06/20/1540-1605-ryota-tomioka/"
    assert source_kind(talk) == FIRST_HAND
    # Only the workshop's pages: the rest of the domain is not classified by this entry.
    assert source_kind("http://marcocuturi.net/") == SECONDARY
