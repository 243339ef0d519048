"""Flow control: AIMD halves on throttling (once per burst) and grows back; buckets pace."""

import asyncio
import time

from tasks.judging.limits import AimdLimiter, TokenBucket


def test_aimd_halves_once_per_burst_and_grows_back() -> None:
    lim = AimdLimiter(ceiling=32, cooldown=60)
    lim.on_throttle()
    lim.on_throttle()  # same burst: ignored
    assert lim.limit == 16
    lim._last_cut = -float("inf")
    lim.on_throttle()
    assert lim.limit == 8
    for _ in range(8):  # one window of successes adds about one slot
        lim.on_success()
    assert 8.9 < lim.limit < 9.1
    for _ in range(10_000):
        lim.on_success()
    assert lim.limit == 32  # never above the configured ceiling


def test_aimd_never_goes_below_the_floor() -> None:
    lim = AimdLimiter(ceiling=4, floor=1, cooldown=0)
    for _ in range(10):
        lim.on_throttle()
    assert lim.limit == 1


def test_limiter_bounds_calls_in_flight() -> None:
    lim = AimdLimiter(ceiling=3)
    peak = 0

    async def one() -> None:
        nonlocal peak
        await lim.acquire()
        peak = max(peak, lim.in_flight)
        await asyncio.sleep(0.01)
        await lim.release()

    async def main() -> None:
        await asyncio.gather(*(one() for _ in range(20)))

    asyncio.run(main())
    assert peak == 3 and lim.in_flight == 0


def test_token_bucket_paces_requests() -> None:
    bucket = TokenBucket(per_minute=600)  # 10 per second, burst of 10

    async def main() -> float:
        start = time.monotonic()
        for _ in range(15):
            await bucket.take(1)
        return time.monotonic() - start

    assert asyncio.run(main()) >= 0.45  # the 5 beyond the burst wait ≈ 0.5 s
