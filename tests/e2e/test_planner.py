"""A reader chooses a network and a machine in the planner, then sweeps P."""

import re

from playwright.sync_api import expect


def open_settings(page) -> None:
    """Unfold every settings group (the page folds all but the network, machine, devices, batch
    and tokens), as a reader does who wants to change them."""
    for group in page.locator("#planner-form details.settings").all():
        if group.get_attribute("open") is None:
            group.locator("summary").click()


def test_it_plans_a_network_on_a_machine_and_sweeps_p(page, live_survey):
    page.goto(f"{live_survey.url}/planner/")
    expect(page.locator("#ranked tr[data-strategy]")).to_have_count(13)
    expect(page.locator("#overlap-assumption")).to_contain_text("Overlap is on (the default")
    page.select_option("select[name=network]", "vgg-16")
    page.select_option("select[name=machine]", "alexnet-2012")
    open_settings(page)
    # The preset fills what is left empty: clear the fields it provides.
    for name in ("P", "flops", "memory_gb", "latency_us", "bandwidth_gbs", "gamma"):
        page.fill(f"input[name={name}]", "")
    page.fill("input[name=sweep_max]", "64")
    page.fill("input[name=sweep_points]", "7")
    page.click("button:has-text('Plan')")
    expect(page).to_have_url(re.compile(r"network=vgg-16.*machine=alexnet-2012"))
    expect(page.locator("#strategies h2")).to_contain_text("VGG-16, N = 256, P = 2")
    expect(page.locator("#machine")).to_contain_text("two GTX 580 3GB GPUs")
    plot = page.locator("div.plot[data-drawn=true]")
    expect(plot).to_be_visible(timeout=15000)
    # Two panels (step time, efficiency), one line per strategy (13) in each.
    assert page.locator("div.plot[data-drawn=true] .scatterlayer .trace").count() == 26
    expect(page.locator("#sweep")).to_contain_text("(7 points)")

    page.fill("input[name=P]", "32")
    page.click("button:has-text('Plan')")
    expect(page).to_have_url(re.compile(r"P=32"))
    pipeline = page.locator("#ranked tr[data-strategy=pipeline]")
    expect(pipeline).to_contain_text("more nodes (P = 32) than layers (21)")
    page.locator("#derivation-data-tree summary").click()
    expect(page.locator("#derivation-data-tree")).to_contain_text("2*log2(32)*(")
    expect(page.locator("#derivation-data-tree")).to_contain_text("confirmed")


def test_it_shows_the_bound_for_a_bad_value(page, live_survey):
    page.goto(f"{live_survey.url}/planner/?P=0")
    expect(page.locator("div.errors")).to_contain_text("must be an integer between 1 and 65536")


def test_it_takes_overlap_recomputation_and_a_two_level_network(page, live_survey):
    page.goto(f"{live_survey.url}/planner/?network=resnet-50&P=64")
    open_settings(page)
    page.select_option("select[name=overlap]", "false")
    page.select_option("select[name=recompute]", "full")
    page.fill("input[name=devices_per_node]", "8")
    page.fill("input[name=intra_bandwidth_gbs]", "80")
    page.click("button:has-text('Plan')")
    expect(page).to_have_url(re.compile(r"recompute=full.*overlap=false.*devices_per_node=8"))
    expect(page.locator("#overlap-assumption")).to_contain_text("Overlap is off")
    expect(page.locator("#overlap-assumption")).to_contain_text("8 devices per node")
    ring = page.locator("#derivation-data-ring")
    ring.locator("summary").click()
    expect(ring).to_contain_text("communication time (inside each node)")
    expect(ring).to_contain_text("recomputation (one more forward pass)")
    expect(page.locator("#sensitivity-table tr[data-term]").first).to_be_visible()


def test_it_ranks_the_layouts_of_a_transformer_preset(page, live_survey):
    page.goto(f"{live_survey.url}/planner/")
    page.click("#transformer-presets a:has-text('GPT-3 175B (Brown')")
    expect(page).to_have_url(re.compile(r"network=gpt3-175b.*machine=a100-cluster"))
    expect(page.locator("#strategies h2")).to_contain_text("GPT-3 175B")
    expect(page.locator('#ranked tr[data-strategy="3d"]')).to_contain_text("days")
    rows = page.locator("#layout-table tr[data-layout]")
    expect(rows.first).to_contain_text("the fastest layout that fits")
    # A layout family's derivation is fetched when opened, its cost models linked.
    page.locator("#derivation-3d summary").click()
    expect(page.locator("#derivation-3d table.derivations")).to_contain_text("With your values")
    expect(page.locator("#derivation-3d a[href*='/evaluate/']").first).to_be_visible()
    open_settings(page)
    page.fill("input[name=efficiency]", "0.5")
    page.click("button:has-text('Plan')")
    expect(page).to_have_url(re.compile(r"efficiency=0.5"))
    expect(page.locator("#comparison")).to_contain_text("175B parameters")


def test_it_builds_the_machine_of_a_catalogue_device(page, live_survey):
    page.goto(f"{live_survey.url}/planner/?network=llama2-70b&machine=a100-cluster")
    page.select_option("select[name=device]", "h100-sxm")
    page.click("button:has-text('Plan')")
    expect(page).to_have_url(re.compile(r"device=h100-sxm"))
    expect(page.locator("#machine")).to_contain_text("device: NVIDIA H100")
    expect(page.locator("#machine")).to_contain_text("mlcommons")


def test_it_plans_mlperfs_lora_fine_tuning_with_a_frozen_base(page, live_survey):
    page.goto(f"{live_survey.url}/planner/")
    page.click("#transformer-presets a:has-text('Llama 2 70B with LoRA')")
    expect(page).to_have_url(re.compile(r"network=llama2-70b-lora"))
    expect(page.locator("#comparison")).to_contain_text("adapters")
    expect(page.locator("#comparison")).to_contain_text("44,564,480")
    expect(page.locator("#configuration")).to_contain_text("lora_rank")
    expect(page.locator('#ranked tr[data-strategy="3d"]')).to_contain_text("dp 8")
    expect(page.locator("#network")).to_contain_text("LoRA, the base frozen")


def test_it_splits_the_sequence_with_context_parallelism(page, live_survey):
    page.goto(f"{live_survey.url}/planner/?network=llama2-70b-lora&machine=a100-cluster")
    open_settings(page)
    page.fill("input[name=P]", "64")
    page.fill("input[name=batch]", "64")
    page.fill("input[name=cp]", "2")
    page.click("button:has-text('Plan')")
    expect(page).to_have_url(re.compile(r"cp=2"))
    expect(page.locator('#ranked tr[data-strategy="3d"]')).to_contain_text("× cp 2")
    expect(page.locator("#layout-table")).to_contain_text("cp")
    open_settings(page)
    page.fill("input[name=cp]", "3")
    page.click("button:has-text('Plan')")
    expect(page.locator("body")).to_contain_text("cp (3) must divide P (64)")
