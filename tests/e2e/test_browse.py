"""A reader browses the works; a curator edits one in the admin."""

import re

from django.contrib.auth.models import Group, User
from playwright.sync_api import expect


def test_it_filters_by_level_and_category_then_opens_a_work(page, live_survey):
    page.goto(f"{live_survey.url}/works/")
    expect(page.locator(".summary strong")).to_have_text("270")
    page.select_option("select[name=level]", "train")
    expect(page).to_have_url(re.compile(r"level=train"))
    training_count = int(page.locator(".summary strong").inner_text())
    assert 0 < training_count < 270
    page.select_option("select[name=category]", "train-comp-quant")
    expect(page).to_have_url(re.compile(r"category=train-comp-quant"))
    quantization_count = int(page.locator(".summary strong").inner_text())
    assert 0 < quantization_count < training_count
    page.locator("ol.works a", has_text="QSGD").click()
    expect(page.locator("h1")).to_contain_text("QSGD")
    expect(page.locator(".assignments")).to_contain_text("Quantization")


def test_it_keeps_the_filters_in_a_copied_link(page, live_survey):
    page.goto(f"{live_survey.url}/works/?level=ops&q=convolution")
    expect(page.locator("select[name=level]")).to_have_value("ops")
    expect(page.locator("input[name=q]")).to_have_value("convolution")
    expect(page.locator("ol.works li").first).to_contain_text("onvolution")


def test_it_sends_an_anonymous_user_to_the_admin_login(page, live_survey):
    page.goto(f"{live_survey.url}/admin/catalogue/work/")
    expect(page).to_have_url(re.compile(r"/admin/login/\?next="))


def test_it_lets_a_curator_edit_a_work_and_shows_the_change(page, live_survey):
    user = User.objects.create_user("ada", password="a-long-curator-password", is_staff=True)
    user.groups.add(Group.objects.get(name="curators"))
    page.goto(f"{live_survey.url}/admin/login/")
    page.fill("input[name=username]", "ada")
    page.fill("input[name=password]", "a-long-curator-password")
    page.click("input[type=submit]")
    page.goto(f"{live_survey.url}/admin/catalogue/work/?q=dean2012large")
    page.locator("#result_list a", has_text="dean2012large").click()
    page.fill("textarea[name=title]", "Large Scale Distributed Deep Networks (edited)")
    page.click("input[name=_save]")
    expect(page.locator(".messagelist")).to_contain_text("was changed successfully")
    page.goto(f"{live_survey.url}/works/dean2012large/")
    expect(page.locator("h1")).to_have_text("Large Scale Distributed Deep Networks (edited)")
