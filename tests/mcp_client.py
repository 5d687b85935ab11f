"""Speaks MCP to `codegraph-tui mcp` through the official Python SDK (`mcp` on PyPI).

Usage: mcp_client.py BINARY REPO SYMBOL FILE. Starts BINARY `mcp` REPO over stdio (the
environment is passed on, so the caller's isolated cache and config apply), initializes,
lists the tools, waits for the index (`status`), then calls `callers` of SYMBOL and
`outline` of FILE, and prints one JSON object on stdout with what the server said. The
Rust test (tests/mcp_python.rs) checks the values; this script only reports them.
"""

import asyncio
import json
import os
import sys
import time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def structured(result):
    if result.is_error:
        raise SystemExit("tool error: " + " ".join(c.text for c in result.content))
    return result.structured_content


async def main():
    binary, repo, symbol, file = sys.argv[1:5]
    params = StdioServerParameters(command=binary, args=["mcp", repo], env=dict(os.environ))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            tools = await session.list_tools()
            deadline = time.monotonic() + 120
            while True:
                status = structured(await session.call_tool("status", {}))
                if status["result"]["state"] == "ready":
                    break
                if time.monotonic() > deadline:
                    raise SystemExit("the index was not ready after 120 s")
                await asyncio.sleep(0.1)
            callers = await session.call_tool("callers", {"symbol": symbol})
            outline = await session.call_tool("outline", {"path": file})
            print(json.dumps({
                "protocol": init.protocol_version,
                "server": {"name": init.server_info.name, "version": init.server_info.version},
                "instructions": init.instructions,
                "tools": sorted(t.name for t in tools.tools),
                "callers": structured(callers),
                "callers_text": callers.content[0].text,
                "outline": structured(outline),
            }))


asyncio.run(main())
