export declare const BINARIES: ReadonlyArray<{ name: string; why: string; debian: string }>;
export declare function minimumNode(): string;
export declare function missingPrerequisites(options?: { nodeVersion?: string; path?: string }): string[];
