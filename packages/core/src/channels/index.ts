export * from "./routing.js";
