// How a new instance downloads a private S3 object (the machine agent bundle) with its own
// instance role, before it has any AWS tool: a short Python program, run by the python3 every
// Ubuntu cloud image carries (cloud-init itself is Python), that takes the role's credentials from
// the instance metadata service (IMDSv2, as the launch template requires) and signs one GET with
// Signature Version 4 (https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-header-based-auth.html).
//
// This replaces a presigned URL minted by the provisioner: a presigned URL carries the signing
// role's session and a signing time, so every retry of one launch rendered different user data,
// and RunInstances answered IdempotentParameterMismatch instead of returning the instance its
// ClientToken had started. The bucket and key are the same on every retry, so the user data is.
//
// The program takes bucket, key, region and output path; two optional arguments replace the
// metadata service's and S3's addresses, for the test that checks its signature against the AWS
// SDK's signer (test/unit/provider/s3-get-script.test.ts).

export const S3_GET_PROGRAM = String.raw`import datetime, hashlib, hmac, json, shutil, sys, urllib.parse, urllib.request
bucket, key, region, out = sys.argv[1:5]
imds_base = sys.argv[5] if len(sys.argv) > 5 else 'http://169.254.169.254'
# The partition's DNS suffix, by the rule of shared/aws/partition.ts: China's regions are amazonaws.com.cn.
suffix = 'amazonaws.com.cn' if region.startswith('cn-') else 'amazonaws.com'
s3_base = sys.argv[6] if len(sys.argv) > 6 else 'https://' + bucket + '.s3.' + region + '.' + suffix

def imds(path, method='GET', headers={}):
    with urllib.request.urlopen(urllib.request.Request(imds_base + path, method=method, headers=headers), timeout=10) as r:
        return r.read().decode()

auth = {'X-aws-ec2-metadata-token': imds('/latest/api/token', 'PUT', {'X-aws-ec2-metadata-token-ttl-seconds': '300'})}
role = imds('/latest/meta-data/iam/security-credentials/', headers=auth).split()[0]
creds = json.loads(imds('/latest/meta-data/iam/security-credentials/' + role, headers=auth))

host = urllib.parse.urlsplit(s3_base).netloc
path = '/' + urllib.parse.quote(key, safe='/-_.~')
amz_date = datetime.datetime.now(datetime.timezone.utc).strftime('%Y%m%dT%H%M%SZ')
day = amz_date[:8]
signed = {'host': host, 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD', 'x-amz-date': amz_date, 'x-amz-security-token': creds['Token']}
names = ';'.join(sorted(signed))
canonical = '\n'.join(['GET', path, '', ''.join(k + ':' + signed[k] + '\n' for k in sorted(signed)), names, 'UNSIGNED-PAYLOAD'])
scope = day + '/' + region + '/s3/aws4_request'
to_sign = '\n'.join(['AWS4-HMAC-SHA256', amz_date, scope, hashlib.sha256(canonical.encode()).hexdigest()])
k = ('AWS4' + creds['SecretAccessKey']).encode()
for part in (day, region, 's3', 'aws4_request'):
    k = hmac.new(k, part.encode(), hashlib.sha256).digest()
headers = {name: value for name, value in signed.items() if name != 'host'}
headers['Authorization'] = ('AWS4-HMAC-SHA256 Credential=' + creds['AccessKeyId'] + '/' + scope + ', SignedHeaders=' + names
    + ', Signature=' + hmac.new(k, to_sign.encode(), hashlib.sha256).hexdigest())
with urllib.request.urlopen(urllib.request.Request(s3_base + path, headers=headers), timeout=120) as r, open(out, 'wb') as f:
    shutil.copyfileobj(r, f)
`;
