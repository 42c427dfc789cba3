"""Machine-dependent estimates: how fast this kind of machine does the work the library plans
around (how many workers, when a bracket fits, how long the end of a run takes). They only steer
decisions and forecasts, never results. Each names the bench that measures it; run it on a new
machine and set the figure it prints."""

from __future__ import annotations

# a half-iteration shorter than this is not worth Ray's round trips and start-up ("auto" workers)
RAY_WORTH_SECONDS = 0.2  # bench/scaling.py (the Ray round trip)
EXACT_PASS_BYTES_PER_SECOND = 2.4e9  # strategy-dependent arrays an exact pass sweeps per second: bench/scaling.py
SAMPLED_DEALS_PER_SECOND = 100_000  # deals a sampled pass evaluates per second on one core: bench/calibration.py
# a bracket's drawn deal costs this many training deals (both players' sets, without refinement or focus rounds):
# bench/calibration.py
BRACKET_DEAL_COST = 1.8
# nl27's bracket: its best response takes a pass per level of the betting tree over deals of few classes at a
# time, against training passes over sparse strategies: the real deck's 60-minute run's final bracket
# (docs/lab/NL27-history.md)
NL27_BRACKET_DEAL_COST = 10.0
# each refinement round and the focus round add about this many times that bracket's time (progress and final
# brackets are forecast with it, final ones sized by it): bench/calibration.py (brackets with and without them)
BRACKET_ROUND_COST = 5.8
# the exact exploitability of a sampled strategy: the draw expectation's showdown pairs per second, then a best
# response per stack at this many seconds per deal and stack: bench/calibration.py
EQUITY_PAIRS_PER_SECOND = 4.3e8
SECONDS_PER_DEAL_AND_STACK = 5.5e-6
