"""A server whose tools ask questions back, for the inspector page's question panel
(tests/test_inspector_questions_browser.py).

``order`` elicits a form with every kind of field the page builds (a required string, an
integer with bounds and a default, a boolean, an enum whose options have titles), ``nickname``
elicits through a pydantic model, and ``haiku`` asks the client's model (sampling) with a
system prompt and a conversation of two messages.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from toolwire import Context, Server

mcp = Server("Inspected questions", version="0.1.0")

ORDER_FORM = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Your name", "description": "Who the order is for"},
        "count": {
            "type": "integer",
            "title": "How many",
            "minimum": 1,
            "maximum": 10,
            "default": 2,
        },
        "gift": {"type": "boolean", "title": "Gift wrap", "default": False},
        "size": {
            "type": "string",
            "title": "Size",
            "oneOf": [
                {"const": "s", "title": "Small"},
                {"const": "m", "title": "Medium"},
                {"const": "l", "title": "Large"},
            ],
            "default": "m",
        },
    },
    "required": ["name", "count"],
}


@mcp.tool()
async def order(ctx: Context, item: str = "tea") -> str:
    """Ask who the order is for, how many, and how to pack it."""
    answer = await ctx.elicit(f"Please complete your order of {item}.", ORDER_FORM)
    if answer.action != "accept":
        return f"No order ({answer.action})"
    data = answer.data
    gift = " as a gift" if data.get("gift") else ""
    return f"Order: {data['count']} x {data.get('size', '?')} {item} for {data['name']}{gift}"


class Nickname(BaseModel):
    nickname: str = Field(description="What to call you")


@mcp.tool()
async def nickname(ctx: Context) -> str:
    """Ask for a nickname (a pydantic model as the form)."""
    answer = await ctx.elicit("What should we call you?", Nickname)
    if answer.action != "accept":
        return f"No nickname ({answer.action})"
    return f"Hi, {answer.data.nickname}"


@mcp.tool()
async def haiku(ctx: Context, topic: str = "tests") -> str:
    """Ask the client's model for a haiku."""
    reply = await ctx.sample(
        [
            {"role": "user", "content": {"type": "text", "text": f"Write a haiku about {topic}"}},
            {"role": "assistant", "content": {"type": "text", "text": "Which season?"}},
        ],
        system_prompt="You are a terse poet.",
        max_tokens=60,
    )
    return f"The model said: {reply.text}"


SIGN_IN = "https://id.example.invalid/sign-in?state=42"


@mcp.tool()
async def sign_in(ctx: Context) -> str:
    """Send the person to a sign-in page (URL-mode elicitation)."""
    answer = await ctx.elicit_url("Sign in to continue.", SIGN_IN)
    return f"Sign-in {answer.action}"
