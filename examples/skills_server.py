"""A server of Agent Skills (the Skills extension, SEP-2640): the folders in ``skills/`` beside
this file, each with a ``SKILL.md``, served as ``skill://`` resources with their sizes and
digests, so a host can list them, load one when it needs it, and check what it read.

Run it over stdio::

    python examples/skills_server.py

and load a skill from Python::

    from toolwire import Client
    async with Client("python examples/skills_server.py") as client:
        entries = await client.list_skills()        # nothing is read yet
        skill = await client.load_skill("release-notes")   # read and checked
        template = await skill.read("templates/release.md")
"""

from pathlib import Path

from toolwire import Server

mcp = Server("Skills", instructions="Load a skill when the task matches its description.")
mcp.add_skills(Path(__file__).parent / "skills")


if __name__ == "__main__":
    mcp.run()
