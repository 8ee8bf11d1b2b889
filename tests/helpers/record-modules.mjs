// `node --import <this file>`: appends the URL of every module the process loads to the file named
// by RECORD_MODULES_TO, one a line (the hook runs in Node's loader thread; see record-modules-hooks.mjs).
import { register } from 'node:module';

register('./record-modules-hooks.mjs', import.meta.url);
