"""A small stand-in for the Hugging Face Hub's HTTP API, served on 127.0.0.1.

It answers the calls `HfApi.create_repo`, `list_repo_refs`, `upload_folder` (tree listing,
YAML validation, preupload, commit) and `create_tag` make, keeping the repository's files,
commits and tags in memory, so a test can push with the real `huggingface_hub` client and then
compare what "the Hub" holds with the local release. Every file is accepted in the "regular"
upload mode (content inline in the commit); the real Hub sends large files through LFS/Xet,
which this fake does not implement.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

_REPO = r"/api/datasets/([^/]+/[^/]+)"


@dataclass
class HubState:
    files: dict[str, bytes] = field(default_factory=dict)
    commits: list[str] = field(default_factory=list)
    tags: dict[str, str] = field(default_factory=dict)  # tag -> commit
    tree_at_tag: dict[str, dict[str, bytes]] = field(default_factory=dict)
    authorizations: set[str] = field(default_factory=set)


def _refs(state: HubState) -> dict:
    """The answer to ``list_repo_refs``: main at the last commit, and the tags."""
    head = state.commits[-1] if state.commits else "0" * 40
    return {
        "branches": [{"name": "main", "ref": "refs/heads/main", "targetCommit": head}],
        "tags": [
            {"name": t, "ref": f"refs/tags/{t}", "targetCommit": c} for t, c in state.tags.items()
        ],
        "converts": [],
    }


def _commit(state: HubState, body: bytes) -> str:
    """Apply a commit's NDJSON operations (header, files, deletions); its new oid."""
    summary = ""
    for line in body.decode().splitlines():
        op = json.loads(line)
        if op["key"] == "header":
            summary = op["value"]["summary"]
        elif op["key"] == "file":
            state.files[op["value"]["path"]] = base64.b64decode(op["value"]["content"])
        elif op["key"] == "deletedFile":
            state.files.pop(op["value"]["path"], None)
    oid = hashlib.sha1(f"{len(state.commits)}{summary}".encode()).hexdigest()
    state.commits.append(oid)
    return oid


def _handler(state: HubState) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:
            pass

        def _send(self, code: int, body: object) -> None:
            data = json.dumps(body).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _url(self, path: str) -> str:
            return f"http://127.0.0.1:{self.server.server_address[1]}{path}"

        def do_GET(self) -> None:
            state.authorizations.add(self.headers.get("Authorization", ""))
            if re.match(_REPO + r"/refs", self.path):
                return self._send(200, _refs(state))
            if re.match(_REPO + r"/tree/", self.path):
                return self._send(
                    200,
                    [
                        {
                            "type": "file",
                            "path": p,
                            "size": len(b),
                            "oid": hashlib.sha1(b).hexdigest(),
                        }
                        for p, b in sorted(state.files.items())
                    ],
                )
            self._send(404, {"error": f"not in the fake hub: GET {self.path}"})

        def do_POST(self) -> None:
            state.authorizations.add(self.headers.get("Authorization", ""))
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if self.path == "/api/repos/create":
                return self._send(200, {"url": self._url("/datasets/org/x"), "name": "org/x"})
            if self.path == "/api/validate-yaml":
                return self._send(200, {"errors": [], "warnings": []})
            if re.match(_REPO + r"/preupload/", self.path):
                files = json.loads(body)["files"]
                modes = [
                    {"path": f["path"], "uploadMode": "regular", "shouldIgnore": False}
                    for f in files
                ]
                return self._send(200, {"files": modes})
            if re.match(_REPO + r"/commit/", self.path):
                oid = _commit(state, body)
                return self._send(
                    200, {"commitUrl": self._url(f"/datasets/org/x/commit/{oid}"), "commitOid": oid}
                )
            match = re.match(_REPO + r"/tag/([0-9a-f]+)$", self.path)
            if match:
                tag = json.loads(body)["tag"]
                state.tags[tag] = match.group(2)
                state.tree_at_tag[tag] = dict(state.files)
                return self._send(200, {})
            self._send(404, {"error": f"not in the fake hub: POST {self.path}"})

    return Handler


class FakeHub:
    """``with FakeHub() as hub: …`` serves on ``hub.url`` until the block ends."""

    def __init__(self) -> None:
        self.state = HubState()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self.state))
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> FakeHub:
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()
