"""moto_server for the tests, without the work moto repeats for nothing (issue 40 item 4).

Measured on the test machine (moto 5.2.1, MOTO_IAM_LOAD_MANAGED_POLICIES=true): each test's
POST /moto-api/reset and the first request after it cost about 5 s of CPU, most of a cloud_a test
file's CPU. Where it went, and what this launcher changes (the same moto serves the same answers):

1. Every request looks its access key up in the IAM backend of every partition (aws, aws-cn,
   aws-us-gov, ...), which creates all six, and each parses the 1,400 AWS managed policies from one
   JSON string again. Here an access key is looked up only in the partitions that exist (a key can only
   be in a backend that was created), and the string is parsed once (the parsed data is only read:
   each backend still builds policy objects of its own, so attachments never cross a reset).
2. A reset re-creates every backend in place (EC2's 2,300 default images with their volumes, IAM's
   policies) and then drops them all: the next request creates them again. Here the backends whose
   class has no reset of its own are dropped without being re-created first; those that clean up in
   their own reset (S3 closes its files) still run it.

Each patch is applied only when moto has the function it replaces with the shape expected (a moto
upgrade that changes them runs plain moto, and says so on stderr). TEST_MOTO_PLAIN=1 runs plain moto
(to compare). Arguments are moto_server's.
"""
import json
import os
import sys


def patch_iam(models):
    parse_once = {}

    def init_aws_policies(self):
        if not models.load_iam_aws_managed_policies():
            return []
        if "data" not in parse_once:
            parse_once["data"] = json.loads(models.aws_managed_policies_data)
        return [models.AWSManagedPolicy.from_data(name, self.account_id, self.region_name, d) for name, d in parse_once["data"].items()]

    def get_account_id_from(access_key):
        for account_id, account in list(models.iam_backends.items()):
            for partition in models.PARTITION_NAMES:
                backend = dict.get(account, partition)  # never creates a backend: a key is only in one that exists
                if backend is not None and access_key in backend.access_keys:
                    return account_id
        return models.DEFAULT_ACCOUNT_ID

    models.IAMBackend._init_aws_policies = init_aws_policies
    models.get_account_id_from = get_account_id_from


def patch_reset(base):
    plain_reset = base.BaseBackend.reset

    def reset(cls):
        with base.backend_lock:
            for backend in base.BackendDict._instances:
                for account_specific_backend in backend.values():
                    for region_backend in account_specific_backend.values():
                        if type(region_backend).reset is not plain_reset:
                            region_backend.reset()
                backend.clear()
            base.BackendDict._instances.clear()

    base.BackendDict.reset = classmethod(reset)


def main():
    if os.environ.get("TEST_MOTO_PLAIN") != "1":
        try:
            import moto.iam.models as models

            needed = ("load_iam_aws_managed_policies", "aws_managed_policies_data", "AWSManagedPolicy", "iam_backends", "PARTITION_NAMES", "DEFAULT_ACCOUNT_ID", "get_account_id_from")
            if all(hasattr(models, n) for n in needed) and hasattr(models.IAMBackend, "_init_aws_policies"):
                patch_iam(models)
            else:
                sys.stderr.write("moto-server.py: moto's IAM is not the one this launcher knows; IAM runs unpatched\n")
        except ImportError as err:
            sys.stderr.write(f"moto-server.py: {err}; IAM runs unpatched\n")
        import moto.core.base_backend as base

        if all(hasattr(base, n) for n in ("BackendDict", "BaseBackend", "backend_lock")) and isinstance(getattr(base.BackendDict, "_instances", None), list):
            patch_reset(base)
        else:
            sys.stderr.write("moto-server.py: moto's backends are not the ones this launcher knows; reset runs unpatched\n")
    from moto.server import main as moto_main

    moto_main(sys.argv[1:])


if __name__ == "__main__":
    main()
