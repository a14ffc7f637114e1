"""A BMI calculator: pydantic ``Field`` constraints, a model as the result, all five annotations.

Shows what the MCP tutorials do with the official SDK, unchanged but for the import:

* ``Field(gt=0, le=...)`` constraints become ``exclusiveMinimum``/``maximum`` in the input
  schema, and arguments that break them come back as an ``isError`` result naming the field;
* a ``BaseModel`` return type becomes the tool's ``outputSchema``; each call returns the
  model as ``structuredContent`` plus the same JSON as text;
* ``annotations={...}`` with ``title``, ``readOnlyHint``, ``destructiveHint``,
  ``idempotentHint`` and ``openWorldHint``.

Run it over stdio::

    python examples/bmi.py
"""

from typing import Literal

from pydantic import BaseModel, Field

from toolwire import Server

mcp = Server("BMI Calculator")


class BMIResponse(BaseModel):
    """A body mass index and its WHO category."""

    bmi: float = Field(description="Body mass index, rounded to one decimal")
    category: Literal["underweight", "normal", "overweight", "obese"] = Field(
        description="WHO category for adults"
    )


@mcp.tool(
    annotations={
        "title": "Calculate BMI",
        "readOnlyHint": True,
        "destructiveHint": False,
        "idempotentHint": True,
        "openWorldHint": False,
    }
)
def calculate_bmi(
    weight_kg: float = Field(..., gt=0, le=500, description="Weight in kilograms"),
    height_m: float = Field(..., gt=0, le=3, description="Height in meters"),
) -> BMIResponse:
    """Calculate the body mass index (BMI) for an adult."""
    bmi = round(weight_kg / (height_m**2), 1)
    if bmi < 18.5:
        category = "underweight"
    elif bmi < 25:
        category = "normal"
    elif bmi < 30:
        category = "overweight"
    else:
        category = "obese"
    return BMIResponse(bmi=bmi, category=category)


if __name__ == "__main__":
    mcp.run()
