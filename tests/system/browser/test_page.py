"""GET /play without a browser: the page and its files are served with the right
types and headers, and nothing in them points at another host."""

from __future__ import annotations

import re

import httpx
import pytest

from service.web import PLAY_DIRECTORY

# The only absolute URL the page may hold: the SVG namespace, a name, never fetched.
SVG_NAMESPACE = "http://www.w3.org/2000/svg"
URL = re.compile(r"""(?:https?:)?//[A-Za-z0-9.-]+\.[A-Za-z]{2,}[^\s'"`)<>]*""")


@pytest.mark.parametrize("path", ["/play", "/play/", "/play/index.html"])
async def test_the_page_is_served(page_client: httpx.AsyncClient, path: str) -> None:
    answer = await page_client.get(path)
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/html")
    assert '<script type="module" src="/play/app.js">' in answer.text
    policy = answer.headers["content-security-policy"]
    assert "default-src 'self'" in policy and "frame-ancestors 'none'" in policy
    assert answer.headers["cache-control"] == "no-cache"
    assert answer.headers["x-content-type-options"] == "nosniff"
    assert answer.headers["x-request-id"]  # through the app's middleware like any request


async def test_the_assets_have_their_types(page_client: httpx.AsyncClient) -> None:
    script = await page_client.get("/play/app.js")
    assert script.status_code == 200
    assert script.headers["content-type"].split(";")[0] in {
        "text/javascript",
        "application/javascript",
    }
    assert "import" in script.text
    style = await page_client.get("/play/style.css")
    assert style.status_code == 200 and style.headers["content-type"].startswith("text/css")
    icon = await page_client.get("/play/favicon.svg")
    assert icon.status_code == 200 and icon.headers["content-type"].startswith("image/svg+xml")
    missing = await page_client.get("/play/no-such-file.js")
    assert missing.status_code == 404
    assert missing.headers["content-type"] == "application/problem+json"


async def test_every_module_the_page_imports_is_served(page_client: httpx.AsyncClient) -> None:
    seen: set[str] = set()
    todo = ["app.js"]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        answer = await page_client.get(f"/play/{name}")
        assert answer.status_code == 200, name
        todo += re.findall(r"""from '\./([\w-]+\.js)'""", answer.text)
    assert seen == {p.name for p in PLAY_DIRECTORY.glob("*.js")}


async def test_the_page_points_at_no_other_host(page_client: httpx.AsyncClient) -> None:
    files = sorted(p.name for p in PLAY_DIRECTORY.iterdir() if p.is_file())
    assert {"index.html", "app.js", "strings.js", "style.css"} <= set(files)
    for name in files:
        answer = await page_client.get(f"/play/{name}")
        assert answer.status_code == 200, name
        urls = [u for u in URL.findall(answer.text) if u != SVG_NAMESPACE]
        assert urls == [], f"{name} refers to another host: {urls}"
        assert "@import" not in answer.text, name
    index = (await page_client.get("/play")).text
    for reference in re.findall(r"""(?:src|href)="([^"]+)\"""", index):
        assert reference.startswith("/play/"), reference


async def test_the_api_document_leaves_the_page_out(page_client: httpx.AsyncClient) -> None:
    document = (await page_client.get("/schema/openapi.json")).json()
    assert not [path for path in document["paths"] if path.startswith("/play")]
