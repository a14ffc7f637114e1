"""OpenAPI as tools: a real FastAPI app on uvicorn, its generated document turned into tools
by ``Server.from_openapi``, every operation called through toolwire's client over HTTP."""

from __future__ import annotations

import contextlib
import socket
from collections.abc import AsyncIterator, Iterator
from enum import Enum
from typing import Annotated, Any

import httpx
import pytest
from fastapi import Body, Cookie, FastAPI, Header, HTTPException, Path, Query, Request, Response
from pydantic import BaseModel, Field

from toolwire import Server
from toolwire.errors import RegistrationError

from http_server import bound_socket, serve_http, uvicorn_on
from wire import MODERN, checked_client

pytestmark = pytest.mark.timeout(60)

LEGACY = "2025-11-25"


# -- the API ------------------------------------------------------------------------------


class Color(str, Enum):
    red = "red"
    green = "green"


class Size(BaseModel):
    width: float
    height: float = 1.0


class ItemIn(BaseModel):
    name: str
    price: float = Field(gt=0)
    color: Color = Color.red
    size: Size | None = None
    labels: list[str] = []


class Item(ItemIn):
    id: int


class ItemPatch(BaseModel):
    name: str | None = None
    price: float | None = None


class Node(BaseModel):
    name: str
    children: list[Node] = []


def make_api() -> FastAPI:
    app = FastAPI(title="Shop API", version="1.0")
    items: dict[int, Item] = {1: Item(id=1, name="pen", price=1.5, labels=["office"])}

    @app.get("/items/{item_id}", tags=["items"], summary="Read one item")
    def read_item(item_id: int, detail: bool = False) -> Item:
        """Fetch an item by its id."""
        if item_id not in items:
            raise HTTPException(404, detail=f"item {item_id} not found")
        return items[item_id]

    @app.get("/items", tags=["items"])
    def list_items(
        limit: Annotated[int, Query(ge=1, description="How many items at most")] = 10,
        color: Color | None = None,
        label: Annotated[list[str] | None, Query()] = None,
    ) -> list[Item]:
        found = [i for i in items.values() if color is None or i.color == color]
        found = [i for i in found if all(x in i.labels for x in label or ())]
        return found[:limit]

    @app.post("/items", tags=["items"], status_code=201)
    def create_item(item: ItemIn) -> Item:
        created = Item(id=max(items) + 1, **item.model_dump())
        items[created.id] = created
        return created

    @app.put("/items/{item_id}", tags=["items"])
    def replace_item(item_id: int, item: ItemIn) -> Item:
        items[item_id] = Item(id=item_id, **item.model_dump())
        return items[item_id]

    @app.patch("/items/{item_id}", tags=["items"])
    def patch_item(item_id: int, patch: ItemPatch) -> Item:
        changes = patch.model_dump(exclude_unset=True)
        items[item_id] = items[item_id].model_copy(update=changes)
        return items[item_id]

    @app.delete("/items/{item_id}", tags=["items", "admin"], status_code=204)
    def delete_item(item_id: int) -> Response:
        if items.pop(item_id, None) is None:
            raise HTTPException(404, detail="no such item")
        return Response(status_code=204)

    @app.get("/files/{name}", tags=["files"])
    def file_name(name: Annotated[str, Path(description="A file name")]) -> dict[str, str]:
        return {"name": name}

    @app.get("/whoami")
    def whoami(
        authorization: Annotated[str | None, Header()] = None,
        x_trace: Annotated[str | None, Header()] = None,
        session: Annotated[str | None, Cookie()] = None,
    ) -> dict[str, Any]:
        return {"auth": authorization, "trace": x_trace, "session": session}

    @app.post("/sum")
    def total(numbers: Annotated[list[int], Body()]) -> int:
        return sum(numbers)

    @app.post("/tree")
    def count(node: Node) -> int:
        def walk(n: Node) -> int:
            return 1 + sum(walk(c) for c in n.children)

        return walk(node)

    @app.post("/rename/{name}")
    def rename(name: str, body: Annotated[dict[str, str], Body()]) -> dict[str, str]:
        return {"old": name, **body}

    @app.get("/echo/{rest:path}", include_in_schema=False)
    def echo(request: Request) -> dict[str, Any]:
        """What the request looked like on the wire (for the serialisation test)."""
        return {
            "path": request.scope["raw_path"].decode(),
            "query": request.scope["query_string"].decode(),
            "ids": request.headers.get("x-ids"),
            "cookie": request.headers.get("cookie"),
        }

    @app.get("/boom")
    def boom() -> Response:
        return Response("x" * 5000, status_code=500)

    @app.get("/plain", operation_id="plain text please")
    def plain() -> Response:
        return Response("just text", media_type="text/plain")

    return app


@contextlib.contextmanager
def serve_asgi(app: Any) -> Iterator[str]:
    """``app`` on a real uvicorn on 127.0.0.1."""
    sock = bound_socket()
    with uvicorn_on(app, sock, lifespan="off"):
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"


@pytest.fixture
def api_url() -> Iterator[str]:
    with serve_asgi(make_api()) as url:
        yield url


def closing(client: httpx.AsyncClient) -> Any:
    """A lifespan that closes ``client`` on the server's own event loop when it stops."""

    @contextlib.asynccontextmanager
    async def lifespan(server: Server) -> AsyncIterator[None]:
        async with client:
            yield

    return lifespan


def shop(url: str, **options: Any) -> Server:
    client = httpx.AsyncClient(base_url=url, headers={"Authorization": "Bearer s3cret"})
    # the document read from the app's own URL
    return Server.from_openapi(f"{url}/openapi.json", client, lifespan=closing(client), **options)


# -- every operation, through the client ---------------------------------------------------


@pytest.mark.parametrize("revision", [LEGACY, MODERN])
async def test_every_operation_is_a_tool_called_over_http(api_url: str, revision: str) -> None:
    mcp = shop(api_url, names={"count_tree_post": "count_nodes"})
    with serve_http(mcp) as endpoint:
        async with checked_client(endpoint, revision) as client:
            tools = {t["name"]: t for t in await client.list_tools()}
            assert sorted(tools) == sorted(
                [
                    "read_item_items__item_id__get",
                    "list_items_items_get",
                    "create_item_items_post",
                    "replace_item_items__item_id__put",
                    "patch_item_items__item_id__patch",
                    "delete_item_items__item_id__delete",
                    "file_name_files__name__get",
                    "whoami_whoami_get",
                    "total_sum_post",
                    "count_nodes",
                    "rename_rename__name__post",
                    "boom_boom_get",
                    "plain_text_please",
                ]
            )
            read = tools["read_item_items__item_id__get"]
            assert read["description"] == "Read one item\n\nFetch an item by its id."
            assert read["inputSchema"] == {
                "type": "object",
                "properties": {
                    "item_id": {"type": "integer"},
                    "detail": {"type": "boolean", "default": False},
                },
                "required": ["item_id"],
            }
            assert read["annotations"] == {
                "readOnlyHint": True,
                "idempotentHint": True,
                "openWorldHint": True,
            }
            item = read["outputSchema"]
            assert item["type"] == "object" and item["required"] == ["name", "price", "id"]
            assert item["properties"]["color"] == {
                "type": "string",
                "enum": ["red", "green"],
                "default": "red",
            }
            assert "title" not in str(item)

            result = await client.call_tool("read_item_items__item_id__get", {"item_id": 1})
            assert not result.is_error
            assert result.structured["name"] == "pen"
            assert result.structured["labels"] == ["office"]
            missing = await client.call_tool("read_item_items__item_id__get", {"item_id": 9})
            assert missing.is_error
            assert "404" in missing.text and "item 9 not found" in missing.text

            # POST with a nested model, an enum and an array: the body's properties sit
            # beside the parameters
            create = tools["create_item_items_post"]
            assert create["inputSchema"]["required"] == ["name", "price"]
            assert create["inputSchema"]["properties"]["color"]["enum"] == ["red", "green"]
            assert create["annotations"]["readOnlyHint"] is False
            made = await client.call_tool(
                "create_item_items_post",
                {
                    "name": "lamp",
                    "price": 20,
                    "color": "green",
                    "size": {"width": 2.5},
                    "labels": ["home", "light"],
                },
            )
            assert made.structured == {
                "name": "lamp",
                "price": 20.0,
                "color": "green",
                "size": {"width": 2.5, "height": 1.0},
                "labels": ["home", "light"],
                "id": 2,
            }
            bad = await client.call_tool(
                "create_item_items_post", {"name": "x", "price": 1, "colour": "red"}
            )
            assert bad.is_error and "did you mean 'color'" in bad.text
            refused = await client.call_tool("create_item_items_post", {"name": "x", "price": -1})
            assert refused.is_error and "price: -1 is less than or equal to the minimum" in (
                refused.text
            )

            # query parameters: an enum, a repeated array, an optional one given as null
            listing = tools["list_items_items_get"]
            assert listing["outputSchema"]["required"] == ["result"]  # a list, wrapped
            assert listing["inputSchema"]["properties"]["color"] == {
                "type": "string",
                "enum": ["red", "green"],
            }
            found = await client.call_tool(
                "list_items_items_get", {"color": "green", "label": ["home", "light"]}
            )
            assert [i["name"] for i in found.structured["result"]] == ["lamp"]
            found = await client.call_tool("list_items_items_get", {"limit": 1, "color": None})
            assert [i["name"] for i in found.structured["result"]] == ["pen"]

            # PUT: the path parameter and the body's properties in one schema
            put = tools["replace_item_items__item_id__put"]
            assert put["annotations"]["idempotentHint"] is True
            assert put["inputSchema"]["required"] == ["item_id", "name", "price"]
            replaced = await client.call_tool(
                "replace_item_items__item_id__put", {"item_id": 2, "name": "lamp2", "price": 3}
            )
            assert replaced.structured["name"] == "lamp2"

            # PATCH: optional body properties; the required body is sent even when empty
            patch = tools["patch_item_items__item_id__patch"]["inputSchema"]
            assert patch["required"] == ["item_id"]
            assert patch["properties"]["price"] == {"type": "number"}
            same = await client.call_tool("patch_item_items__item_id__patch", {"item_id": 2})
            assert same.structured["name"] == "lamp2"
            cheaper = await client.call_tool(
                "patch_item_items__item_id__patch", {"item_id": 2, "price": 2.5, "name": None}
            )
            assert (cheaper.structured["name"], cheaper.structured["price"]) == ("lamp2", 2.5)

            # DELETE: destructive; a 204 is a success without a body, then a 404
            delete = tools["delete_item_items__item_id__delete"]
            assert delete["annotations"]["destructiveHint"] is True
            gone = await client.call_tool("delete_item_items__item_id__delete", {"item_id": 2})
            assert not gone.is_error
            again = await client.call_tool("delete_item_items__item_id__delete", {"item_id": 2})
            assert again.is_error and "404" in again.text and "no such item" in again.text

            # a path parameter is URL-encoded
            odd = "a b?c#d%e"  # (Starlette routes on the decoded path: no "/" here)
            named = await client.call_tool("file_name_files__name__get", {"name": odd})
            assert named.structured == {"name": odd}
            assert tools["file_name_files__name__get"]["inputSchema"]["properties"]["name"] == {
                "type": "string",
                "description": "A file name",
            }

            # headers: the client's auth header applies, header and cookie parameters too
            who = await client.call_tool("whoami_whoami_get", {"x-trace": "t-1", "session": "abc"})
            assert who.structured == {"auth": "Bearer s3cret", "trace": "t-1", "session": "abc"}

            # a body that is no object sits under "body"; a scalar result is wrapped
            summed = await client.call_tool("total_sum_post", {"body": [1, 2, 3]})
            assert summed.structured == {"result": 6}

            # a recursive model: cut where it recurs, the call still goes through
            tree = tools["count_nodes"]["inputSchema"]["properties"]["children"]
            assert tree["items"]["description"] == "A Node (recursive: same shape as above)"
            counted = await client.call_tool(
                "count_nodes",
                {"name": "r", "children": [{"name": "a", "children": [{"name": "b"}]}]},
            )
            assert counted.structured == {"result": 3}

            # a body property colliding with a parameter: the body goes whole under "body"
            rename = tools["rename_rename__name__post"]["inputSchema"]
            assert rename["required"] == ["name", "body"]
            renamed = await client.call_tool(
                "rename_rename__name__post", {"name": "old", "body": {"new": "x"}}
            )
            assert renamed.structured == {"old": "old", "new": "x"}

            # a failed answer's body is trimmed for the model
            boom = await client.call_tool("boom_boom_get", {})
            assert boom.is_error
            assert boom.text == (
                "GET /boom answered HTTP 500 Internal Server Error: "
                + "x" * 2000
                + "... (5000 characters)"
            )

            text = await client.call_tool("plain_text_please", {})
            assert text.text == "just text"


def _param(name: str, where: str, schema: Any, **style: Any) -> dict[str, Any]:
    return {"name": name, "in": where, "schema": schema, **style}


STRINGS = {"type": "array", "items": {"type": "string"}}
POINT = {"type": "object", "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}}}
STYLES = {
    "openapi": "3.0.3",
    "info": {"title": "Styles", "version": "1"},
    "paths": {
        "/echo/{ids}/{point}": {
            "get": {
                "operationId": "echo",
                "parameters": [
                    _param("ids", "path", {"type": "array", "items": {"type": "integer"}}),
                    _param("point", "path", POINT, explode=True),
                    _param("plain", "query", STRINGS, explode=False),
                    _param("pipes", "query", STRINGS, style="pipeDelimited", explode=False),
                    _param("spaces", "query", STRINGS, style="spaceDelimited", explode=False),
                    _param("filter", "query", POINT, style="deepObject", explode=True),
                    _param("flat", "query", POINT),
                    _param("flag", "query", {"type": "boolean"}),
                    _param("X-Ids", "header", {"type": "array", "items": {"type": "integer"}}),
                    _param("session", "cookie", {"type": "string"}),
                ],
                "responses": {"200": {"description": "ok", "content": {"application/json": {}}}},
            }
        }
    },
}


async def test_parameters_are_serialised_by_their_style(api_url: str) -> None:
    client = httpx.AsyncClient(base_url=api_url)
    mcp = Server.from_openapi(STYLES, client, lifespan=closing(client))
    with serve_http(mcp) as endpoint:
        async with checked_client(endpoint, MODERN) as c:
            (tool,) = await c.list_tools()
            assert tool["inputSchema"]["required"] == ["ids", "point"]
            result = await c.call_tool(
                "echo",
                {
                    "ids": [1, 2],
                    "point": {"x": 3, "y": 4},
                    "plain": ["a", "b c"],
                    "pipes": ["a", "b"],
                    "spaces": ["a", "b"],
                    "filter": {"x": 5},
                    "flat": {"x": 6, "y": 7},
                    "flag": True,
                    "X-Ids": [8, 9],
                    "session": "s 1;",
                },
            )
            assert result.structured == {
                "path": "/echo/1%2C2/x%3D3%2Cy%3D4",
                "query": "plain=a%2Cb+c&pipes=a%7Cb&spaces=a+b&filter%5Bx%5D=5&x=6&y=7&flag=true",
                "ids": "8,9",
                "cookie": "session=s%201%3B",
            }


async def test_a_network_failure_is_a_clear_error() -> None:
    document = make_api().openapi()
    with socket.socket() as spare:  # a port nobody listens on
        spare.bind(("127.0.0.1", 0))
        port = spare.getsockname()[1]
    client = httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}")
    mcp = Server.from_openapi(document, client, lifespan=closing(client))
    with serve_http(mcp) as endpoint:
        async with checked_client(endpoint, LEGACY) as client:
            result = await client.call_tool("read_item_items__item_id__get", {"item_id": 1})
            assert result.is_error
            assert result.text.startswith("GET /items/{item_id}: the request failed:")


def test_route_filters_and_names() -> None:
    document = make_api().openapi()
    client = httpx.AsyncClient(base_url="http://127.0.0.1:9")
    only_items = Server.from_openapi(document, client, include=["tag:items"], exclude=["DELETE"])
    assert sorted(t.name for t in only_items.tools) == [
        "create_item_items_post",
        "list_items_items_get",
        "patch_item_items__item_id__patch",
        "read_item_items__item_id__get",
        "replace_item_items__item_id__put",
    ]
    by_path = Server.from_openapi(document, client, include=["GET /items*", "/files/*"])
    assert len(by_path.tools) == 3
    by_function = Server.from_openapi(
        document, client, include=[lambda method, path, op: method == "POST"]
    )
    assert len(by_function.tools) == 4
    assert only_items.name == "Shop API"
    openai = Server.from_openapi(document, client, provider="openai", include=["/items/*"])
    read = openai.get_tool("read_item_items__item_id__get").definition["inputSchema"]
    assert read["additionalProperties"] is False  # the provider's strict shape
    assert only_items.get_tool("read_item_items__item_id__get").tags == {"items"}

    with pytest.raises(RegistrationError, match="Route filter 'items'"):
        Server.from_openapi(document, client, include=["items"])

    mcp = Server("two")
    mcp.add_openapi(document, client, include=["/sum"], names={"POST /sum": "add_up"})
    mcp.add_openapi(document, client, include=["/sum"])
    mcp.add_openapi(document, client, include=["/sum"])
    assert [t.name for t in mcp.tools] == ["add_up", "total_sum_post", "total_sum_post_2"]


def test_names_are_safe_and_deterministic() -> None:
    long_id = "x" * 100
    document = {
        "openapi": "3.0.3",
        "info": {"title": "t", "version": "1"},
        "paths": {
            "/a/{id}": {
                "get": {"responses": {}},
                "post": {"operationId": "do it!", "responses": {}},
            },
            "/b": {
                "get": {"operationId": long_id, "responses": {}},
                "put": {"operationId": "do_it_", "responses": {}},
                "post": {"operationId": "do it!", "responses": {}},
            },
        },
    }
    client = httpx.AsyncClient(base_url="http://127.0.0.1:9")
    names = Server.from_openapi(document, client).add_openapi(document, client)
    assert names[0] == "get_a_id_2"  # the first server already had get_a_id
    first = [t.name for t in Server.from_openapi(document, client).tools]
    assert first == ["get_a_id", "do_it_", first[2], "do_it__2", "do_it__3"]
    assert len(first[2]) == 64 and first[2].startswith("x" * 55)


def test_openapi_30_refs_nullable_and_yaml(tmp_path: Any) -> None:
    yaml = pytest.importorskip("yaml")
    document = {
        "openapi": "3.0.3",
        "info": {"title": "Pets", "version": "1"},
        "servers": [{"url": "http://127.0.0.1:9/v1"}],
        "components": {
            "parameters": {
                "Limit": {"name": "limit", "in": "query", "schema": {"type": "integer"}}
            },
            "schemas": {
                "Pet": {
                    "type": "object",
                    "title": "Pet",
                    "required": ["name"],
                    "properties": {
                        "name": {"type": "string", "example": "Rex"},
                        "tag": {"type": "string", "nullable": True},
                        "parent": {"$ref": "#/components/schemas/Pet"},
                    },
                }
            },
        },
        "paths": {
            "/pets": {
                "get": {
                    "operationId": "listPets",
                    "parameters": [{"$ref": "#/components/parameters/Limit"}],
                    "responses": {
                        "200": {
                            "description": "ok",
                            "content": {
                                "application/json": {
                                    "schema": {
                                        "type": "array",
                                        "items": {"$ref": "#/components/schemas/Pet"},
                                    }
                                }
                            },
                        }
                    },
                }
            }
        },
    }
    path = tmp_path / "pets.yaml"
    path.write_text(yaml.safe_dump(document))
    assert [t.name for t in Server.from_openapi(path).tools] == ["listPets"]
    assert [t.name for t in Server.from_openapi(yaml.safe_dump(document)).tools] == ["listPets"]
    mcp = Server.from_openapi(str(path))
    tool = mcp.get_tool("listPets").definition
    assert tool["inputSchema"] == {"type": "object", "properties": {"limit": {"type": "integer"}}}
    pet = tool["outputSchema"]["properties"]["result"]["items"]
    assert pet["properties"]["tag"] == {"type": ["string", "null"]}
    assert pet["properties"]["name"] == {"type": "string"}
    assert pet["properties"]["parent"]["description"] == "A Pet (recursive: same shape as above)"
    broken = {**document, "components": {}}
    with pytest.raises(RegistrationError) as raised:
        Server.from_openapi(broken)
    assert str(raised.value) == (
        "OpenAPI operation GET /pets: The reference '#/components/parameters/Limit' points at "
        "nothing in the document (leave it out with exclude=['GET /pets'])"
    )
    assert len(Server.from_openapi(broken, exclude=["GET /pets"]).tools) == 0
    with pytest.raises(RegistrationError, match=r"Not an OpenAPI 3\.0/3\.1 document"):
        Server.from_openapi({"swagger": "2.0"})


def big_document(operations: int) -> dict[str, Any]:
    """A deterministic description with ``operations`` operations sharing components."""
    schemas = {
        f"Model{i}": {
            "type": "object",
            "required": ["id"],
            "properties": {
                "id": {"type": "integer"},
                "name": {"type": "string", "description": f"Name of model {i}"},
                "tags": {"type": "array", "items": {"type": "string"}},
                "next": {"$ref": f"#/components/schemas/Model{(i + 1) % 50}"},
            },
        }
        for i in range(50)
    }
    paths: dict[str, Any] = {}
    for n in range(operations // 2):
        model = {"$ref": f"#/components/schemas/Model{n % 50}"}
        answer = {"200": {"description": "ok", "content": {"application/json": {"schema": model}}}}
        paths[f"/resource{n}/{{id}}"] = {
            "parameters": [
                {"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}}
            ],
            "get": {
                "operationId": f"getResource{n}",
                "summary": f"Read resource {n}",
                "tags": [f"group{n % 20}"],
                "parameters": [{"name": "expand", "in": "query", "schema": {"type": "boolean"}}],
                "responses": answer,
            },
            "put": {
                "operationId": f"putResource{n}",
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": model}},
                },
                "responses": answer,
            },
        }
    return {
        "openapi": "3.1.0",
        "info": {"title": "Big", "version": "1"},
        "components": {"schemas": schemas},
        "paths": paths,
    }


async def test_a_large_description_becomes_tools() -> None:
    # How long it takes is measured by benchmarks/openapi_load.py, not here.
    document = big_document(5000)
    client = httpx.AsyncClient(base_url="http://127.0.0.1:9")
    mcp = Server.from_openapi(document, client)
    assert len(mcp.tools) == 5000
    async with checked_client(mcp, LEGACY) as c:
        listed = await c.list_tools()
    assert len(listed) == 5000
    definition = mcp.get_tool("putResource7").definition
    assert definition["inputSchema"]["required"] == ["id", "body"]  # "id" collides
