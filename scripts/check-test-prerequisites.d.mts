export declare const BINARIES: ReadonlyArray<{ name: string; why: string; debian: string }>;
export declare function minimumNode(): string;
export declare const DEFAULT_CHROMIUM: string;
export declare function chromiumPath(env?: Record<string, string | undefined>): string;
export declare function missingPrerequisites(options?: { nodeVersion?: string; path?: string; chromium?: string }): string[];
