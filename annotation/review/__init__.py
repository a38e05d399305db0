"""The review itself: pushing a run's candidates, pulling the answers, deciding each record
(policies, adjudication), measuring agreement and the annotators' quality, and the report.

Review talks to a server only through :mod:`biasforge.annotation.client`; it neither starts
nor administers one (:mod:`biasforge.annotation.admin`).
"""
