"""Compaction by topic against one summary: how many of the facts later turns ask about (each piece of work's failing
test and the function its fix added) a compaction of a scripted session of five pieces of work keeps, with a
summarising model on 127.0.0.1 that answers with the first tokens of its input, up to the request's answer budget
(the same budget in all for both methods, so grouping is what differs).

    python -m bench.compaction_topics
"""

from __future__ import annotations

from collections.abc import Iterator

from bench.common import Result, emit_all, run_alone
from tests.support.loopback import LoopbackServer
from tests.support.topic_session import ANSWER_BUDGET, compacted_summary, facts, first_words, retained

ROUNDS = (1, 3, 5)
"""Read-and-test rounds per piece of work: the summarised transcript is about 4, 11 and 19 times the budget."""


def retention() -> Iterator[Result]:
    server = LoopbackServer()
    server.responder = first_words(ANSWER_BUDGET)
    try:
        counts = {
            rounds: [len(retained(compacted_summary(server, by_topic=flag, rounds=rounds))) for flag in (True, False)]
            for rounds in ROUNDS
        }
    finally:
        server.close()
    total = len(facts())
    by_round = ", ".join(f"{rounds} rounds {topic} vs {single}" for rounds, (topic, single) in counts.items())
    topic, single = counts[ROUNDS[1]]
    yield Result(
        "compaction.topic_facts_kept",
        topic,
        f"of {total}",
        target=f"≥ single ({single})",
        met=all(topic >= single for topic, single in counts.values()),
        note=f"facts kept, by topic vs one summary, same {ANSWER_BUDGET}-token budget: {by_round}",
    )


def benchmarks() -> Iterator[Result]:
    return emit_all(retention)


if __name__ == "__main__":
    run_alone(benchmarks)
