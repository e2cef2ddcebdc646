export function buildVersion(version: string, commitDate: Date, commit: string): string;
