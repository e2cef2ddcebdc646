import { existsSync } from 'node:fs';
import { SandboxCommand } from '../../cli/sandbox-command.js';
import { certificatePath } from '../../sandbox/tls.js';
import { ConfigError } from '../../core/errors.js';

/** What `--json` prints. */
export type JsonResult = { path: string };

export default class SandboxCert extends SandboxCommand<JsonResult> {
  static override summary = "Print the path of the sandbox's certificate, for clients to trust (--ca-cert)";
  static override examples = ['<%= config.bin %> sandbox cert', 'curl --cacert "$(<%= config.bin %> sandbox cert)" https://127.0.0.1:8443/v1/reports'];

  public async run(): Promise<JsonResult> {
    const { flags } = await this.parse(SandboxCert);
    const dir = this.sandboxDir(flags['data-dir']);
    const path = certificatePath(dir);
    if (!existsSync(path)) {
      throw new ConfigError(
        'sandbox_not_started',
        `no sandbox certificate in ${dir}`,
        'start the sandbox once with `svc sandbox start`; it makes its certificate on first start',
      );
    }
    this.log(path);
    return { path };
  }
}
