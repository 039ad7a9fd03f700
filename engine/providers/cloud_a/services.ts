/**
 * The top-level commands of the aws CLI (aws-cli 1.45: the 'valid choices' it lists). A first word that
 * is none of these may be an alias from ~/.aws/cli/alias, which can run anything, so the classifier
 * cannot decide it (engine/providers/cloud_a/destroyer.ts). Regenerate: `aws zzz 2>&1` lists them.
 */
export const AWS_SERVICES: ReadonlySet<string> = new Set(
  `accessanalyzer account acm acm-pca aiops amp amplify amplifybackend amplifyuibuilder apigateway
apigatewaymanagementapi apigatewayv2 appconfig appconfigdata appfabric appflow appintegrations
application-autoscaling application-insights application-signals applicationcostprofiler appmesh
apprunner appstream appsync arc-region-switch arc-zonal-shift artifact athena auditmanager
autoscaling autoscaling-plans b2bi backup backup-gateway backupsearch batch bcm-dashboards
bcm-data-exports bcm-pricing-calculator bcm-recommended-actions bedrock bedrock-agent
bedrock-agent-runtime bedrock-agentcore bedrock-agentcore-control bedrock-data-automation
bedrock-data-automation-runtime bedrock-runtime billing billingconductor braket budgets ce chatbot
chime chime-sdk-identity chime-sdk-media-pipelines chime-sdk-meetings chime-sdk-messaging
chime-sdk-voice cleanrooms cleanroomsml cloud9 cloudcontrol clouddirectory cloudformation
cloudfront cloudfront-keyvaluestore cloudhsm cloudhsmv2 cloudsearch cloudsearchdomain cloudtrail
cloudtrail-data cloudwatch codeartifact codebuild codecatalyst codecommit codeconnections
codeguru-reviewer codeguru-security codeguruprofiler codepipeline codestar-connections
codestar-notifications cognito-identity cognito-idp cognito-sync comprehend comprehendmedical
compute-optimizer compute-optimizer-automation configservice configure connect connect-contact-lens
connectcampaigns connectcampaignsv2 connectcases connecthealth connectparticipant controlcatalog
controltower cost-optimization-hub cur customer-profiles databrew dataexchange datapipeline
datasync datazone dax deadline deploy detective devicefarm devops-agent devops-guru directconnect
discovery dlm dms docdb docdb-elastic drs ds ds-data dsql dynamodb dynamodbstreams ebs ec2
ec2-instance-connect ecr ecr-public ecs efs eks eks-auth elasticache elasticbeanstalk elb elbv2
elementalinference emr emr-containers emr-serverless entityresolution es events evs finspace
finspace-data firehose fis fms forecast forecastquery frauddetector freetier fsx gamelift
gameliftstreams geo-maps geo-places geo-routes glacier globalaccelerator glue grafana greengrass
greengrassv2 groundstation guardduty health healthlake history iam identitystore imagebuilder
importexport inspector inspector-scan inspector2 interconnect internetmonitor invoicing iot
iot-data iot-jobs-data iot-managed-integrations iotdeviceadvisor iotevents iotevents-data
iotfleetwise iotsecuretunneling iotsitewise iotthingsgraph iottwinmaker iotwireless ivs
ivs-realtime ivschat kafka kafkaconnect kendra kendra-ranking keyspaces keyspacesstreams kinesis
kinesis-video-archived-media kinesis-video-media kinesis-video-signaling
kinesis-video-webrtc-storage kinesisanalytics kinesisanalyticsv2 kinesisvideo kms lakeformation
lambda launch-wizard lex-models lex-runtime lexv2-models lexv2-runtime license-manager
license-manager-linux-subscriptions license-manager-user-subscriptions lightsail location logs
lookoutequipment m2 machinelearning macie2 mailmanager managedblockchain managedblockchain-query
marketplace-agreement marketplace-catalog marketplace-deployment marketplace-discovery
marketplace-entitlement marketplace-reporting marketplacecommerceanalytics mediaconnect
mediaconvert medialive mediapackage mediapackage-vod mediapackagev2 mediastore mediastore-data
mediatailor medical-imaging memorydb meteringmarketplace mgh mgn migration-hub-refactor-spaces
migrationhub-config migrationhuborchestrator migrationhubstrategy mpa mq mturk mwaa mwaa-serverless
neptune neptune-graph neptunedata network-firewall networkflowmonitor networkmanager networkmonitor
notifications notificationscontacts nova-act oam observabilityadmin odb omics opensearch
opensearchserverless organizations osis outposts panorama partnercentral-account
partnercentral-benefits partnercentral-channel partnercentral-selling payment-cryptography
payment-cryptography-data pca-connector-ad pca-connector-scep pcs personalize personalize-events
personalize-runtime pi pinpoint pinpoint-email pinpoint-sms-voice pinpoint-sms-voice-v2 pipes polly
pricing proton qapps qbusiness qconnect quicksight ram rbin rds rds-data redshift redshift-data
redshift-serverless rekognition repostspace resiliencehub resource-explorer-2 resource-groups
resourcegroupstaggingapi rolesanywhere route53 route53-recovery-cluster
route53-recovery-control-config route53-recovery-readiness route53domains route53globalresolver
route53profiles route53resolver rtbfabric rum runtime.sagemaker s3 s3api s3control s3files
s3outposts s3tables s3vectors sagemaker sagemaker-a2i-runtime sagemaker-edge
sagemaker-featurestore-runtime sagemaker-geospatial sagemaker-metrics sagemaker-runtime
savingsplans scheduler schemas sdb secretsmanager security-ir securityagent securityhub
securitylake serverlessrepo service-quotas servicecatalog servicecatalog-appregistry
servicediscovery ses sesv2 shield signer signer-data signin simpledbv2 simspaceweaver sms-voice
snow-device-management snowball sns socialmessaging sqs ssm ssm-contacts ssm-guiconnect
ssm-incidents ssm-quicksetup ssm-sap sso sso-admin sso-oidc stepfunctions storagegateway sts
supplychain support support-app sustainability swf synthetics taxsettings textract
timestream-influxdb timestream-query timestream-write tnb transcribe transfer translate
trustedadvisor uxc verifiedpermissions voice-id vpc-lattice waf waf-regional wafv2 wellarchitected
wickr wisdom workdocs workmail workmailmessageflow workspaces workspaces-instances
workspaces-thin-client workspaces-web xray`
    .split(/\s+/)
    .filter(Boolean),
);
