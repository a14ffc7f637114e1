// Imported first by entry.js: zod must not probe `new Function("")` (its JIT), which a page
// Content-Security-Policy without 'unsafe-eval' reports as a violation.
import { config } from "zod/v4";

config({ jitless: true });
