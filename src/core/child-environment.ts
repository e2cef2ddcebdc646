/** The environment for a program svc starts: svc's own variables (its keys, the webhook secret, the profile) stay with svc. */
export function environmentWithoutSvc(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !name.toUpperCase().startsWith('SVC_')));
}
