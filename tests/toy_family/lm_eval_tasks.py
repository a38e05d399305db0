"""The toy family in lm-evaluation-harness, as a maintainer writes it: copied as ``family.py``
into the task folder ``export convert --format lm-eval`` writes, so it imports nothing (the
folder runs wherever lm-eval does). Each sentence is one document with one choice, asked after
the model's start token; its figure is the mean token log-probability, so the documents carry
token counts (``COUNTS_TOKENS``) and ``score import-lm-eval`` replays the same figure."""

COUNTS_TOKENS = True
METRICS = (("mean_logprob", "mean", True),)


def to_doc(row: dict, count) -> dict:
    sentence = row["sentence"]
    return {
        "id": row["id"],
        "register": row["register"],
        "context": "",
        "choices": [sentence],
        "tokens": [count("", sentence)],
    }


def process_results(doc: dict, results) -> dict:
    ((loglikelihood, _),) = results
    tokens = doc["tokens"][0]
    return {"mean_logprob": float(loglikelihood) / tokens if tokens else float(loglikelihood)}
