#!/usr/bin/env node
// Entry point of the schedlab command; the compiled CLI lives in dist/.
import { main } from "../dist/cli/index.js";

process.exitCode = await main(process.argv.slice(2));
