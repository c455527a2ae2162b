/**
 * Prints zxcvbn's guess estimate for the password read from standard input
 * (see passwordStrongEnough in ./passwords.ts, which runs this file as a
 * process of its own for each check). Plain JavaScript, as src/main.js, so
 * that this short-lived process never loads Node's type stripper.
 */
import { text } from 'node:stream/consumers';
import zxcvbn from 'zxcvbn';

process.stdout.write(String(zxcvbn(await text(process.stdin)).guesses));
