BEGIN TRANSACTION;
CREATE TABLE cli_user (
	id INTEGER NOT NULL, 
	name VARCHAR NOT NULL, 
	password_hash VARCHAR NOT NULL, 
	scope VARCHAR NOT NULL, 
	level VARCHAR NOT NULL, 
	vpn VARCHAR, 
	lab_admin BOOLEAN NOT NULL, 
	PRIMARY KEY (id), 
	UNIQUE (name)
);
INSERT INTO "cli_user" VALUES(1,'admin','$scrypt$ln=14,r=8,p=1$2QiVZcyrd1U+fJDzc11ZZA$pWBlLjB5VbVR8VcicRGnZskTBu7VEes5LFWf9E6c7nY','global','admin',NULL,1);
INSERT INTO "cli_user" VALUES(2,'operator','$scrypt$ln=14,r=8,p=1$p7PGQrk81oBr5Sw3Mh2rvw$g2iUQ891lvcNfT37jO2UGrLvelys7FLQPzpUxnrHBBY','global','read-write',NULL,0);
INSERT INTO "cli_user" VALUES(3,'monitor','$scrypt$ln=14,r=8,p=1$U/N6MAvDPNYuav5+TB4ueA$CUOqam5Q9T3GqO4q8Fltq7FmkcvJCKE0vH3DSs/BNTQ','global','read-only',NULL,0);
INSERT INTO "cli_user" VALUES(4,'meshmgr','$scrypt$ln=14,r=8,p=1$dO055GN7vP11AiQGcrQmcw$xSNYM/aaBOc+qoHGY3dyd8CRtBQCycsYQ58rMfFODTo','global','mesh-manager',NULL,0);
INSERT INTO "cli_user" VALUES(5,'trading_admin','$scrypt$ln=14,r=8,p=1$axv8GYPl1IgYBxBYtI941g$n8hB8T/GGwb+EsckJrpSW9/L3/J7PXjFosmjIXhlclQ','vpn','read-write','Trading_VPN',0);
CREATE TABLE client (
	id INTEGER NOT NULL, 
	name VARCHAR NOT NULL, 
	vpn_name VARCHAR NOT NULL, 
	username VARCHAR NOT NULL, 
	hosts TEXT NOT NULL, 
	router_id INTEGER, 
	connected_since_ms INTEGER, 
	client_num INTEGER NOT NULL, 
	wants_connection BOOLEAN NOT NULL, 
	reconnects INTEGER NOT NULL, 
	last_disconnect_reason VARCHAR NOT NULL, 
	PRIMARY KEY (id), 
	UNIQUE (name), 
	FOREIGN KEY(router_id) REFERENCES router (id)
);
INSERT INTO "client" VALUES(1,'trader','Trading_VPN','trader','NY_Appliance1,NJ_Appliance1',1,0,1,1,0,'');
INSERT INTO "client" VALUES(2,'settlement','Trading_VPN','settlement','NY_Appliance1,NJ_Appliance1',1,0,2,1,0,'');
CREATE TABLE config_object (
	id INTEGER NOT NULL, 
	router_id INTEGER NOT NULL, 
	vpn_id INTEGER, 
	parent_id INTEGER, 
	kind VARCHAR NOT NULL, 
	name VARCHAR NOT NULL, 
	attrs TEXT NOT NULL, 
	managed_by VARCHAR NOT NULL, 
	created_seq INTEGER NOT NULL, 
	PRIMARY KEY (id), 
	FOREIGN KEY(router_id) REFERENCES router (id), 
	FOREIGN KEY(vpn_id) REFERENCES vpn (id), 
	FOREIGN KEY(parent_id) REFERENCES config_object (id)
);
INSERT INTO "config_object" VALUES(1,1,5,NULL,'client-profile','p1','{}','',1);
INSERT INTO "config_object" VALUES(2,2,6,NULL,'client-profile','p1','{}','',2);
INSERT INTO "config_object" VALUES(3,1,5,NULL,'telemetry-profile','tp','{}','',3);
INSERT INTO "config_object" VALUES(4,1,5,NULL,'client-profile','#telemetry-tp','{}','telemetry-profile:tp',4);
INSERT INTO "config_object" VALUES(5,1,5,NULL,'acl-profile','#telemetry-tp','{}','telemetry-profile:tp',5);
INSERT INTO "config_object" VALUES(6,2,6,NULL,'telemetry-profile','tp','{}','',6);
INSERT INTO "config_object" VALUES(7,2,6,NULL,'client-profile','#telemetry-tp','{}','telemetry-profile:tp',7);
INSERT INTO "config_object" VALUES(8,2,6,NULL,'acl-profile','#telemetry-tp','{}','telemetry-profile:tp',8);
CREATE TABLE delivery (
	id INTEGER NOT NULL, 
	message_id INTEGER NOT NULL, 
	client_name VARCHAR NOT NULL, 
	router_name VARCHAR NOT NULL, 
	queue_name VARCHAR NOT NULL, 
	at_ms INTEGER NOT NULL, 
	txn_key VARCHAR, 
	PRIMARY KEY (id)
);
CREATE TABLE ha_core (
	id INTEGER NOT NULL, 
	snapshot TEXT NOT NULL, 
	PRIMARY KEY (id)
);
CREATE TABLE ha_group (
	id INTEGER NOT NULL, 
	system VARCHAR NOT NULL, 
	name VARCHAR NOT NULL, 
	next_rgmid INTEGER NOT NULL, 
	rgmid_seed INTEGER NOT NULL, 
	PRIMARY KEY (id), 
	UNIQUE (name)
);
INSERT INTO "ha_group" VALUES(1,'internal','#config-sync',1,1);
INSERT INTO "ha_group" VALUES(2,'solace-replication','default',1,1);
INSERT INTO "ha_group" VALUES(3,'solace-replication','Trading_VPN',1000004,1000001);
CREATE TABLE link (
	id INTEGER NOT NULL, 
	site_a_id INTEGER NOT NULL, 
	site_b_id INTEGER NOT NULL, 
	up BOOLEAN NOT NULL, 
	PRIMARY KEY (id), 
	FOREIGN KEY(site_a_id) REFERENCES site (id), 
	FOREIGN KEY(site_b_id) REFERENCES site (id)
);
INSERT INTO "link" VALUES(1,1,2,1);
CREATE TABLE message (
	id INTEGER NOT NULL, 
	group_id INTEGER NOT NULL, 
	vpn_name VARCHAR NOT NULL, 
	rgmid INTEGER NOT NULL, 
	topic VARCHAR NOT NULL, 
	size INTEGER NOT NULL, 
	client_name VARCHAR NOT NULL, 
	router_name VARCHAR NOT NULL, 
	published_ms INTEGER NOT NULL, 
	replicated INTEGER, 
	note VARCHAR, 
	PRIMARY KEY (id)
);
INSERT INTO "message" VALUES(1,3,'Trading_VPN',1000001,'trading/orders/new',600,'trader','NY_Appliance1',0,1,NULL);
INSERT INTO "message" VALUES(2,3,'Trading_VPN',1000002,'trading/orders/new',600,'trader','NY_Appliance1',0,1,NULL);
INSERT INTO "message" VALUES(3,3,'Trading_VPN',1000003,'trading/orders/new',600,'trader','NY_Appliance1',0,1,NULL);
CREATE TABLE meta (
	"key" VARCHAR NOT NULL, 
	value TEXT NOT NULL, 
	PRIMARY KEY ("key")
);
INSERT INTO "meta" VALUES('schema_version','5');
INSERT INTO "meta" VALUES('now_ms','1500');
CREATE TABLE queue (
	id INTEGER NOT NULL, 
	vpn_id INTEGER NOT NULL, 
	name VARCHAR NOT NULL, 
	kind VARCHAR NOT NULL, 
	access_type VARCHAR NOT NULL, 
	durable BOOLEAN NOT NULL, 
	owner VARCHAR NOT NULL, 
	permission VARCHAR NOT NULL, 
	shutdown BOOLEAN NOT NULL, 
	ingress_up BOOLEAN NOT NULL, 
	egress_up BOOLEAN NOT NULL, 
	max_spool_mb INTEGER NOT NULL, 
	max_bind_count INTEGER NOT NULL, 
	msg_count INTEGER NOT NULL, 
	bytes INTEGER NOT NULL, 
	hwm_bytes INTEGER NOT NULL, 
	PRIMARY KEY (id), 
	UNIQUE (vpn_id, name), 
	FOREIGN KEY(vpn_id) REFERENCES vpn (id)
);
INSERT INTO "queue" VALUES(1,3,'#MSGVPN_REPLICATION_DATA_QUEUE','replication','exclusive',1,'#replication','no-access',0,1,1,60000,1,0,0,0);
INSERT INTO "queue" VALUES(2,4,'#MSGVPN_REPLICATION_DATA_QUEUE','replication','exclusive',1,'#replication','no-access',0,1,1,60000,1,0,0,0);
INSERT INTO "queue" VALUES(3,5,'#MSGVPN_REPLICATION_DATA_QUEUE','replication','exclusive',1,'#replication','no-access',0,1,1,60000,1,0,0,1800);
INSERT INTO "queue" VALUES(4,5,'orders','normal','exclusive',1,'','no-access',0,1,1,5000,1000,3,1800,1800);
INSERT INTO "queue" VALUES(5,6,'#MSGVPN_REPLICATION_DATA_QUEUE','replication','exclusive',1,'#replication','no-access',0,1,1,60000,1,0,0,0);
INSERT INTO "queue" VALUES(6,6,'orders','normal','exclusive',1,'','no-access',0,1,1,5000,1000,3,1800,1800);
INSERT INTO "queue" VALUES(7,5,'audit_q','normal','exclusive',1,'','no-access',1,0,0,5000,1000,0,0,0);
INSERT INTO "queue" VALUES(8,6,'audit_q','normal','exclusive',1,'','no-access',1,0,0,5000,1000,0,0,0);
INSERT INTO "queue" VALUES(9,5,'#telemetry-tp','telemetry','non-exclusive',1,'','consume',0,0,1,5000,1000,0,0,0);
INSERT INTO "queue" VALUES(10,6,'#telemetry-tp','telemetry','non-exclusive',1,'','consume',0,0,1,5000,1000,0,0,0);
CREATE TABLE rejection (
	id INTEGER NOT NULL, 
	vpn_name VARCHAR NOT NULL, 
	client_name VARCHAR NOT NULL, 
	router_name VARCHAR NOT NULL, 
	topic VARCHAR NOT NULL, 
	count INTEGER NOT NULL, 
	reason VARCHAR NOT NULL, 
	at_ms INTEGER NOT NULL, 
	PRIMARY KEY (id)
);
CREATE TABLE repl_entry (
	seq INTEGER NOT NULL, 
	vpn_id INTEGER NOT NULL, 
	kind VARCHAR NOT NULL, 
	message_id INTEGER, 
	msg_id INTEGER, 
	topic VARCHAR, 
	size INTEGER NOT NULL, 
	queue_name VARCHAR, 
	payload TEXT, 
	queued_ms INTEGER NOT NULL, 
	PRIMARY KEY (seq)
);
CREATE TABLE replicated_topic (
	id INTEGER NOT NULL, 
	vpn_id INTEGER NOT NULL, 
	topic VARCHAR NOT NULL, 
	mode VARCHAR NOT NULL, 
	PRIMARY KEY (id), 
	UNIQUE (vpn_id, topic), 
	FOREIGN KEY(vpn_id) REFERENCES vpn (id)
);
INSERT INTO "replicated_topic" VALUES(1,5,'trading/>','async');
INSERT INTO "replicated_topic" VALUES(2,6,'trading/>','async');
CREATE TABLE router (
	id INTEGER NOT NULL, 
	name VARCHAR NOT NULL, 
	site_id INTEGER NOT NULL, 
	up BOOLEAN NOT NULL, 
	next_msg_id INTEGER NOT NULL, 
	msg_id_seed INTEGER NOT NULL, 
	generation INTEGER NOT NULL, 
	repl_interface VARCHAR NOT NULL, 
	mate_name VARCHAR NOT NULL, 
	connect_via VARCHAR NOT NULL, 
	port_plain INTEGER NOT NULL, 
	port_compressed INTEGER NOT NULL, 
	port_ssl INTEGER NOT NULL, 
	max_spool_mb INTEGER NOT NULL, 
	spool_hwm_bytes INTEGER NOT NULL, 
	PRIMARY KEY (id), 
	UNIQUE (name), 
	FOREIGN KEY(site_id) REFERENCES site (id)
);
INSERT INTO "router" VALUES(1,'NY_Appliance1',1,1,3118727409,3118727406,1,'1/6/lag1','v:NJ_Appliance1','192.168.160.12',55555,55003,55443,60000,3600);
INSERT INTO "router" VALUES(2,'NJ_Appliance1',2,1,2094518004,2094518001,1,'1/6/lag1','v:NY_Appliance1','192.168.150.11',55555,55003,55443,60000,1800);
CREATE TABLE setting (
	"key" VARCHAR NOT NULL, 
	value TEXT NOT NULL, 
	PRIMARY KEY ("key")
);
INSERT INTO "setting" VALUES('software_version','10.4.1.52');
INSERT INTO "setting" VALUES('layout','B');
INSERT INTO "setting" VALUES('replication_drain_rate','1000');
INSERT INTO "setting" VALUES('default_message_size','600');
INSERT INTO "setting" VALUES('scenario','default');
CREATE TABLE site (
	id INTEGER NOT NULL, 
	name VARCHAR NOT NULL, 
	PRIMARY KEY (id), 
	UNIQUE (name)
);
INSERT INTO "site" VALUES(1,'NY');
INSERT INTO "site" VALUES(2,'NJ');
CREATE TABLE spooled (
	id INTEGER NOT NULL, 
	queue_id INTEGER NOT NULL, 
	message_id INTEGER NOT NULL, 
	msg_id INTEGER NOT NULL, 
	spooled_ms INTEGER NOT NULL, 
	size INTEGER NOT NULL, 
	txn_id INTEGER, 
	PRIMARY KEY (id)
);
INSERT INTO "spooled" VALUES(1,4,1,3118727406,0,600,NULL);
INSERT INTO "spooled" VALUES(2,4,2,3118727407,0,600,NULL);
INSERT INTO "spooled" VALUES(3,4,3,3118727408,0,600,NULL);
INSERT INTO "spooled" VALUES(4,6,1,2094518001,1500,600,NULL);
INSERT INTO "spooled" VALUES(5,6,2,2094518002,1500,600,NULL);
INSERT INTO "spooled" VALUES(6,6,3,2094518003,1500,600,NULL);
CREATE TABLE subscription (
	id INTEGER NOT NULL, 
	queue_id INTEGER NOT NULL, 
	topic VARCHAR NOT NULL, 
	PRIMARY KEY (id), 
	UNIQUE (queue_id, topic), 
	FOREIGN KEY(queue_id) REFERENCES queue (id)
);
INSERT INTO "subscription" VALUES(1,4,'trading/orders/>');
INSERT INTO "subscription" VALUES(2,6,'trading/orders/>');
CREATE TABLE txn (
	id INTEGER NOT NULL, 
	router_id INTEGER NOT NULL, 
	vpn_id INTEGER NOT NULL, 
	kind VARCHAR NOT NULL, 
	xid VARCHAR, 
	client_name VARCHAR NOT NULL, 
	client_username VARCHAR NOT NULL, 
	client_num INTEGER NOT NULL, 
	state VARCHAR NOT NULL, 
	replicated BOOLEAN NOT NULL, 
	mirror BOOLEAN NOT NULL, 
	heuristic VARCHAR, 
	last_change_ms INTEGER NOT NULL, 
	associated BOOLEAN NOT NULL, 
	PRIMARY KEY (id), 
	FOREIGN KEY(router_id) REFERENCES router (id), 
	FOREIGN KEY(vpn_id) REFERENCES vpn (id)
);
CREATE TABLE txn_op (
	id INTEGER NOT NULL, 
	txn_id INTEGER NOT NULL, 
	op VARCHAR NOT NULL, 
	topic VARCHAR, 
	count INTEGER NOT NULL, 
	size INTEGER NOT NULL, 
	message_id INTEGER, 
	msg_id INTEGER, 
	queue_name VARCHAR, 
	PRIMARY KEY (id)
);
CREATE TABLE vpn (
	id INTEGER NOT NULL, 
	router_id INTEGER NOT NULL, 
	group_id INTEGER NOT NULL, 
	name VARCHAR NOT NULL, 
	internal BOOLEAN NOT NULL, 
	enabled BOOLEAN NOT NULL, 
	repl_enabled BOOLEAN NOT NULL, 
	role VARCHAR NOT NULL, 
	role_since_ms INTEGER NOT NULL, 
	trm VARCHAR NOT NULL, 
	reject_sync_ineligible BOOLEAN NOT NULL, 
	rq_max_spool_mb INTEGER NOT NULL, 
	rq_reject_on_discard BOOLEAN NOT NULL, 
	ack_prop_enabled BOOLEAN NOT NULL, 
	ack_interval INTEGER NOT NULL, 
	bridge_auth_scheme VARCHAR NOT NULL, 
	bridge_username VARCHAR NOT NULL, 
	bridge_password_hash VARCHAR NOT NULL, 
	bridge_compressed BOOLEAN NOT NULL, 
	bridge_retry_delay INTEGER NOT NULL, 
	bridge_ssl BOOLEAN NOT NULL, 
	bridge_window_size INTEGER NOT NULL, 
	bridge_client_profile VARCHAR NOT NULL, 
	bridge_up_since_ms INTEGER, 
	sync_eligible BOOLEAN NOT NULL, 
	drain_carry INTEGER NOT NULL, 
	st_sync_queued INTEGER NOT NULL, 
	st_sync_as_async INTEGER NOT NULL, 
	st_async_queued INTEGER NOT NULL, 
	st_promoted_queued INTEGER NOT NULL, 
	st_pruned INTEGER NOT NULL, 
	st_to_ineligible INTEGER NOT NULL, 
	st_acks_sent INTEGER NOT NULL, 
	st_msgs_received INTEGER NOT NULL, 
	st_acks_received INTEGER NOT NULL, 
	st_tx_received INTEGER NOT NULL, 
	st_rejected_full INTEGER NOT NULL, 
	st_not_replicated INTEGER NOT NULL, 
	st_rejected_sync INTEGER NOT NULL, 
	PRIMARY KEY (id), 
	UNIQUE (router_id, name), 
	FOREIGN KEY(router_id) REFERENCES router (id), 
	FOREIGN KEY(group_id) REFERENCES ha_group (id)
);
INSERT INTO "vpn" VALUES(1,1,1,'#config-sync',1,1,0,'standby',0,'async',0,60000,1,1,20,'basic','','',0,3,0,255,'#client-profile',NULL,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0);
INSERT INTO "vpn" VALUES(2,2,1,'#config-sync',1,1,0,'standby',0,'async',0,60000,1,1,20,'basic','','',0,3,0,255,'#client-profile',NULL,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0);
INSERT INTO "vpn" VALUES(3,1,2,'default',0,1,0,'standby',0,'async',0,60000,1,1,20,'basic','','',0,3,0,255,'#client-profile',NULL,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0);
INSERT INTO "vpn" VALUES(4,2,2,'default',0,1,0,'standby',0,'async',0,60000,1,1,20,'basic','','',0,3,0,255,'#client-profile',NULL,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0);
INSERT INTO "vpn" VALUES(5,1,3,'Trading_VPN',0,1,1,'active',0,'async',0,60000,1,1,20,'basic','replication','$scrypt$ln=14,r=8,p=1$0ruPOfmjgtbPdLTwTpDaEQ$54HS1+uHK/WnRIqk4vY9UTh9jSvQRMQhcWdRYzWfDTQ',0,3,0,255,'#client-profile',NULL,1,0,0,0,3,0,0,0,0,0,0,0,0,0,0);
INSERT INTO "vpn" VALUES(6,2,3,'Trading_VPN',0,1,1,'standby',0,'async',0,60000,1,1,20,'basic','replication','$scrypt$ln=14,r=8,p=1$0ruPOfmjgtbPdLTwTpDaEQ$54HS1+uHK/WnRIqk4vY9UTh9jSvQRMQhcWdRYzWfDTQ',0,3,0,255,'#client-profile',0,0,0,0,0,0,0,0,0,0,3,0,0,0,0,0);
CREATE INDEX ix_message_group_rgmid ON message (group_id, rgmid);
CREATE INDEX ix_spooled_queue ON spooled (queue_id, id);
CREATE INDEX ix_spooled_message ON spooled (message_id);
CREATE INDEX ix_repl_message ON repl_entry (message_id);
CREATE INDEX ix_repl_vpn_seq ON repl_entry (vpn_id, seq);
CREATE INDEX ix_delivery_message ON delivery (message_id);
CREATE INDEX ix_txn_op_txn ON txn_op (txn_id);
CREATE INDEX ix_config_object_lookup ON config_object (router_id, kind, vpn_id, name);
COMMIT;
