"""The sliding-window throttle: exact counts under concurrency, a smooth window, Retry-After."""

import threading

from django.test import RequestFactory

from explorer.web.throttling import AnonThrottle
from tests.helpers import clear_caches

FACTORY = RequestFactory()


class TenPerMinute(AnonThrottle):
    rate = "10/minute"


def request_from(address: str = "203.0.113.7"):
    request = FACTORY.get("/api/works/", REMOTE_ADDR=address)
    request.user = type("Anonymous", (), {"is_authenticated": False})()
    return request


def ask(at: float, address: str = "203.0.113.7") -> tuple[bool, TenPerMinute]:
    throttle = TenPerMinute()
    throttle.timer = lambda: at
    return throttle.allow_request(request_from(address), None), throttle


def test_it_lets_exactly_the_rate_through_when_requests_arrive_together():
    clear_caches()
    allowed = []

    def client():
        for _ in range(25):
            allowed.append(ask(at=600.0)[0])

    threads = [threading.Thread(target=client) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert (allowed.count(True), allowed.count(False)) == (10, 190)


def test_it_slides_the_window_instead_of_resetting_it_each_minute():
    clear_caches()
    assert [ask(at=600.0 + i)[0] for i in range(11)] == [True] * 10 + [False]
    # A fixed window would allow 10 more at once at 660 s; the sliding one counts the previous
    # minute by how much of it still overlaps the last 60 s.
    assert ask(at=660.5)[0] is False
    # Half-way through the next minute, half of the previous minute's 10 still count.
    assert [ask(at=690.0)[0] for _ in range(6)] == [True] * 5 + [False]


def test_it_counts_each_client_apart():
    clear_caches()
    assert all(ask(at=600.0, address="203.0.113.7")[0] for _ in range(10))
    assert ask(at=600.0, address="203.0.113.8")[0] is True
    assert ask(at=600.0, address="203.0.113.7")[0] is False


def test_it_does_not_count_refused_requests():
    clear_caches()
    for _ in range(10):
        ask(at=600.0)
    for _ in range(50):
        ask(at=610.0)  # refused, not counted
    # At 672 s the previous minute's 10 weigh 10 * 48/60 = 8: room for two (none if the 50
    # refused requests had counted).
    assert [ask(at=672.0)[0] for _ in range(3)] == [True, True, False]


def test_it_says_how_long_to_wait():
    clear_caches()
    for _ in range(10):
        ask(at=600.0)
    allowed, throttle = ask(at=610.0)
    assert not allowed
    assert throttle.wait() == 660.0 - 610.0 + 1  # until the next minute starts
