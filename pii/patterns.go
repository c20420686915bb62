package pii

// Category groups personal-data patterns by what is at stake.
type Category string

// Pattern categories.
const (
	CategoryContact    Category = "contact"          // reaches the person: email, phone
	CategoryIdentity   Category = "identity"         // who the person is: name, birth date, photo
	CategoryGovernment Category = "government_id"    // state-issued identifiers
	CategoryFinancial  Category = "financial"        // cards, accounts, income
	CategoryLocation   Category = "location"         // addresses and coordinates
	CategoryOnline     Category = "online_id"        // IP, username, session and cookie IDs
	CategoryDevice     Category = "device_id"        // hardware and advertising identifiers
	CategoryCredential Category = "credential"       // passwords, keys, tokens
	CategoryDemography Category = "demographic"      // gender, nationality, marital status
	CategorySpecial    Category = "special_category" // GDPR Art. 9: health, ethnicity, religion, biometrics…
)

// Kind sets that patterns accept.
const (
	kindsText     = KindString | KindUnknown
	kindsID       = KindString | KindNumber | KindUnknown
	kindsTemporal = KindString | KindNumber | KindTemporal | KindUnknown
	kindsCategory = KindString | KindNumber | KindNamed | KindUnknown
	kindsSpecial  = KindString | KindNumber | KindNamed | KindBoolean | KindUnknown
	kindsGeo      = KindString | KindNumber | KindNamed | KindUnknown
)

// Pattern is one detector rule: a stable ID, a category, a one-line
// purpose and the words that give a field away.
type Pattern struct {
	// ID is stable, SCREAMING_SNAKE with the PII_ prefix.
	ID       string   `json:"id"`
	Category Category `json:"category"`
	Purpose  string   `json:"purpose"`
	// Names are word sequences, written snake_case, that mark a field
	// when they occur in its name's tokens: "email_address" matches
	// "billingEmailAddress". They match with the pattern's Confidence.
	Names []string `json:"names"`
	// Weak are sequences that match one level lower: ambiguous words
	// ("address", "zip") whose other meanings are common. A Weak match is
	// dropped when another pattern matches the field by a Names entry.
	Weak []string `json:"weak,omitempty"`
	// Docs are phrases that mark a field when its doc contains them; a
	// doc match is at most Medium.
	Docs []string `json:"docs,omitempty"`
	// Kinds are the value kinds that can hold the data; 0 means text
	// (string or unknown).
	Kinds Kind `json:"-"`
	// Special marks GDPR Art. 9 special-category data: a boolean flag
	// ("is_pregnant") is such data too, so booleans and "is_"/"has_"
	// names count.
	Special bool `json:"special,omitempty"`
	// Confidence of a Names match; 0 means High. Quasi-identifiers (a
	// city) are Low.
	Confidence Confidence `json:"confidence,omitempty"`
}

// builtinPatterns is the default pattern table. Order is presentation
// order; IDs never change once released.
var builtinPatterns = []Pattern{
	{ID: "PII_EMAIL", Category: CategoryContact, Purpose: "an email address",
		Names: []string{"email", "e_mail", "email_address", "emailaddress", "mail_address", "mailaddress"},
		Weak:  []string{"mail"},
		Docs:  []string{"email address", "e mail address", "email of the", "mail address"}},
	{ID: "PII_PHONE", Category: CategoryContact, Purpose: "a telephone, mobile or fax number",
		Names: []string{"phone", "phone_number", "phonenumber", "telephone", "tel", "mobile_number", "mobile_phone", "cell_phone", "cellphone", "msisdn", "fax_number", "landline"},
		Weak:  []string{"mobile", "fax", "cell"},
		Docs:  []string{"phone number", "telephone number", "mobile number", "cell phone"},
		Kinds: kindsID},
	{ID: "PII_SSN", Category: CategoryGovernment, Purpose: "a US social security number",
		Names: []string{"ssn", "social_security", "social_security_number", "socialsecuritynumber", "social_security_no"},
		Docs:  []string{"social security number", "ssn"},
		Kinds: kindsID},
	{ID: "PII_NINO", Category: CategoryGovernment, Purpose: "a UK national insurance number",
		Names: []string{"nino", "national_insurance", "national_insurance_number", "ni_number", "ni_no"},
		Docs:  []string{"national insurance number", "nino"}},
	{ID: "PII_SIN", Category: CategoryGovernment, Purpose: "a Canadian social insurance number",
		Names: []string{"social_insurance", "social_insurance_number", "sin_number", "sin_no"},
		Weak:  []string{"sin"},
		Docs:  []string{"social insurance number"},
		Kinds: kindsID},
	{ID: "PII_AADHAAR", Category: CategoryGovernment, Purpose: "an Indian Aadhaar number",
		Names: []string{"aadhaar", "aadhar", "aadhaar_number", "aadhaar_no", "uidai"},
		Docs:  []string{"aadhaar"},
		Kinds: kindsID},
	{ID: "PII_CPF", Category: CategoryGovernment, Purpose: "a Brazilian CPF taxpayer number",
		Names: []string{"cpf", "cpf_number", "cadastro_pessoa_fisica"},
		Docs:  []string{"cpf"},
		Kinds: kindsID},
	{ID: "PII_NATIONAL_ID", Category: CategoryGovernment, Purpose: "another national identity number or identity card",
		Names: []string{"national_id", "national_identity", "national_identity_number", "national_identification_number",
			"identity_card", "id_card", "identity_number", "identity_document", "citizen_id", "personal_id_number",
			"personnummer", "bsn", "dni", "curp", "nric", "pesel", "codice_fiscale", "emirates_id", "hkid", "resident_id"},
		Docs:  []string{"national id", "national identity", "identity card", "id card number"},
		Kinds: kindsID},
	{ID: "PII_TAX_ID", Category: CategoryGovernment, Purpose: "a personal tax identification number",
		Names: []string{"tax_id", "taxid", "tax_number", "taxpayer_id", "taxpayer_number", "tax_identification_number", "tin", "itin", "tfn", "utr", "steuer_id", "steuernummer"},
		Docs:  []string{"tax identification number", "taxpayer identification", "tax id"},
		Kinds: kindsID},
	{ID: "PII_DATE_OF_BIRTH", Category: CategoryIdentity, Purpose: "a date of birth or birthday",
		Names: []string{"dob", "date_of_birth", "birth_date", "birthdate", "birthday", "birth_day", "born_on", "birth_year"},
		Docs:  []string{"date of birth", "birth date", "birthday", "born on"},
		Kinds: kindsTemporal},
	{ID: "PII_POSTAL_ADDRESS", Category: CategoryLocation, Purpose: "a postal street address",
		Names: []string{"street", "street_address", "street_name", "address_line", "addressline", "home_address",
			"postal_address", "mailing_address", "billing_address", "shipping_address", "delivery_address",
			"residential_address", "house_number", "street_number", "building_number", "apartment_number"},
		Weak:  []string{"address", "addr"},
		Docs:  []string{"postal address", "street address", "home address", "mailing address", "billing address", "shipping address", "delivery address"},
		Kinds: kindsID},
	{ID: "PII_POSTCODE", Category: CategoryLocation, Purpose: "a postcode or ZIP code",
		Names: []string{"postcode", "postal_code", "post_code", "postalcode", "zip_code", "zipcode", "plz"},
		Weak:  []string{"zip"},
		Docs:  []string{"postcode", "postal code", "zip code"},
		Kinds: kindsID},
	{ID: "PII_CITY", Category: CategoryLocation, Purpose: "a city or town: a quasi-identifier, identifying with postcode or birth date",
		Names:      []string{"city", "town", "city_name", "home_town", "hometown"},
		Docs:       []string{"city of residence", "home town"},
		Confidence: Low},
	{ID: "PII_IP_ADDRESS", Category: CategoryOnline, Purpose: "an IP address (personal data under GDPR, CJEU C-582/14)",
		Names: []string{"ip", "ip_address", "ipaddress", "ip_addr", "ipv4", "ipv6", "ipv4_address", "ipv6_address", "remote_addr", "forwarded_for", "x_forwarded_for"},
		Docs:  []string{"ip address"},
		Kinds: kindsID},
	{ID: "PII_MAC_ADDRESS", Category: CategoryDevice, Purpose: "a network hardware (MAC) address",
		Names: []string{"mac_address", "macaddress", "mac_addr", "bssid", "wifi_mac", "bluetooth_mac"},
		Weak:  []string{"mac"},
		Docs:  []string{"mac address"},
		Kinds: kindsID},
	{ID: "PII_DEVICE_ID", Category: CategoryDevice, Purpose: "a device identifier or push token",
		Names: []string{"device_id", "deviceid", "udid", "android_id", "device_token", "push_token", "fcm_token", "apns_token", "device_fingerprint", "hardware_id"},
		Docs:  []string{"device id", "device identifier", "push token"},
		Kinds: kindsID},
	{ID: "PII_ADVERTISING_ID", Category: CategoryDevice, Purpose: "a mobile advertising identifier (IDFA, IDFV, GAID, AAID)",
		Names: []string{"idfa", "idfv", "gaid", "aaid", "adid", "ad_id", "advertising_id", "advertiser_id_for_device", "maid"},
		Docs:  []string{"advertising id", "advertising identifier", "idfa", "gaid"},
		Kinds: kindsID},
	{ID: "PII_IMEI", Category: CategoryDevice, Purpose: "a mobile equipment or subscriber identity (IMEI, MEID, IMSI, ICCID)",
		Names: []string{"imei", "meid", "imsi", "iccid", "esn"},
		Docs:  []string{"imei", "imsi"},
		Kinds: kindsID},
	{ID: "PII_CARD_NUMBER", Category: CategoryFinancial, Purpose: "a payment card number (PAN)",
		Names: []string{"card_number", "cardnumber", "card_no", "credit_card", "creditcard", "credit_card_number", "debit_card", "debit_card_number", "cc_number", "ccn", "pan", "primary_account_number"},
		Docs:  []string{"card number", "credit card", "debit card", "primary account number"},
		Kinds: kindsID},
	{ID: "PII_CARD_CVV", Category: CategoryFinancial, Purpose: "a card verification code (CVV, CVC)",
		Names: []string{"cvv", "cvv2", "cvc", "cvc2", "csc", "card_verification", "card_verification_code", "card_security_code"},
		Docs:  []string{"card verification", "cvv", "cvc", "security code"},
		Kinds: kindsID},
	{ID: "PII_IBAN", Category: CategoryFinancial, Purpose: "an international bank account number",
		Names: []string{"iban", "iban_number", "international_bank_account_number"},
		Docs:  []string{"iban", "international bank account"}},
	{ID: "PII_BANK_ACCOUNT", Category: CategoryFinancial, Purpose: "a bank account number",
		Names: []string{"bank_account", "bank_account_number", "bank_account_no", "bankaccount", "account_holder_number", "checking_account", "savings_account"},
		Weak:  []string{"account_number", "account_no"},
		Docs:  []string{"bank account", "account number"},
		Kinds: kindsID},
	{ID: "PII_ROUTING_NUMBER", Category: CategoryFinancial, Purpose: "a bank routing, sort or branch code",
		Names: []string{"routing_number", "routing_no", "aba_number", "aba_routing", "sort_code", "bsb", "bsb_number", "transit_number"},
		Docs:  []string{"routing number", "sort code"},
		Kinds: kindsID},
	{ID: "PII_PASSPORT", Category: CategoryGovernment, Purpose: "a passport number",
		Names: []string{"passport", "passport_number", "passport_no", "passport_id"},
		Docs:  []string{"passport"},
		Kinds: kindsID},
	{ID: "PII_DRIVER_LICENCE", Category: CategoryGovernment, Purpose: "a driving licence number",
		Names: []string{"driver_license", "drivers_license", "driver_licence", "drivers_licence", "driving_license", "driving_licence", "dl_number", "driver_license_number", "driving_licence_number"},
		Weak:  []string{"license_number", "licence_number"},
		Docs:  []string{"driver s license", "driver s licence", "driving licence", "driving license", "driver license"},
		Kinds: kindsID},
	{ID: "PII_VEHICLE", Category: CategoryIdentity, Purpose: "a vehicle registration plate or VIN, which leads to its keeper",
		Names: []string{"license_plate", "licence_plate", "number_plate", "registration_plate", "plate_number", "vin", "vehicle_registration", "vehicle_identification_number"},
		Docs:  []string{"license plate", "licence plate", "number plate", "vehicle identification number"},
		Kinds: kindsID},
	{ID: "PII_GEOLOCATION", Category: CategoryLocation, Purpose: "geographic coordinates of a person or device",
		Names: []string{"latitude", "longitude", "lat", "lon", "lng", "lat_lng", "lat_lon", "latlng", "latlon", "lat_long", "latlong", "geolocation", "geo_location", "geo_point", "geopoint", "gps", "gps_location", "coordinates", "geohash"},
		Docs:  []string{"latitude", "longitude", "gps", "geolocation", "coordinates"},
		Kinds: kindsGeo},
	{ID: "PII_PERSON_NAME", Category: CategoryIdentity, Purpose: "a person's name",
		Names: []string{"first_name", "firstname", "last_name", "lastname", "full_name", "fullname", "given_name", "givenname",
			"family_name", "familyname", "middle_name", "maiden_name", "surname", "forename", "legal_name", "birth_name",
			"nickname", "nick_name", "customer_name", "client_name", "contact_name", "person_name", "holder_name",
			"account_holder", "account_holder_name", "cardholder", "cardholder_name", "card_holder", "card_holder_name",
			"recipient_name", "sender_name", "patient_name", "employee_name", "passenger_name", "guest_name",
			"member_name", "user_full_name", "owner_name", "beneficiary_name"},
		Docs: []string{"full name", "first name", "last name", "given name", "family name", "surname"}},
	{ID: "PII_USERNAME", Category: CategoryOnline, Purpose: "a username, login or handle",
		Names: []string{"username", "user_name", "login", "login_name", "login_id", "screen_name", "user_handle", "social_handle", "twitter_handle", "userid_login"},
		Weak:  []string{"handle"},
		Docs:  []string{"username", "user name", "login name", "screen name"}},
	{ID: "PII_PASSWORD", Category: CategoryCredential, Purpose: "a password, passphrase, PIN or security answer",
		Names: []string{"password", "passwd", "pwd", "passphrase", "pass_phrase", "pin", "pin_code", "pincode", "security_answer", "secret_answer", "otp", "one_time_password", "totp_secret"},
		Docs:  []string{"password", "passphrase", "pin code"},
		Kinds: kindsID},
	{ID: "PII_SECRET", Category: CategoryCredential, Purpose: "an API key, private key or access token",
		Names: []string{"secret", "secret_key", "client_secret", "api_key", "apikey", "api_secret", "api_token", "access_key", "access_key_id",
			"private_key", "privatekey", "access_token", "refresh_token", "auth_token", "bearer_token", "id_token", "oauth_token", "signing_key", "encryption_key"},
		Docs:  []string{"api key", "private key", "access token", "refresh token", "secret key"},
		Kinds: kindsID},
	{ID: "PII_SESSION_ID", Category: CategoryOnline, Purpose: "a session or cookie identifier that tracks a person",
		Names: []string{"session_id", "sessionid", "session_token", "session_key", "jsessionid", "cookie", "cookie_id", "tracking_cookie", "visitor_id", "anonymous_id", "ga_client_id"},
		Weak:  []string{"sid"},
		Docs:  []string{"session id", "session identifier", "cookie"},
		Kinds: kindsID},
	{ID: "PII_USER_AGENT", Category: CategoryOnline, Purpose: "a browser user agent, a fingerprinting input",
		Names: []string{"user_agent", "useragent", "ua_string", "browser_fingerprint"},
		Docs:  []string{"user agent"}},
	{ID: "PII_PHOTO", Category: CategoryIdentity, Purpose: "a photo or image of a person",
		Names: []string{"photo", "profile_photo", "profile_picture", "profile_image", "avatar", "selfie", "face_image", "portrait", "headshot", "id_photo"},
		Docs:  []string{"photo of", "profile picture", "selfie"}},
	{ID: "PII_GENDER", Category: CategoryDemography, Purpose: "gender, sex or pronouns",
		Names: []string{"gender", "sex", "pronouns", "pronoun", "gender_identity"},
		Docs:  []string{"gender"},
		Kinds: kindsCategory},
	{ID: "PII_MARITAL_STATUS", Category: CategoryDemography, Purpose: "marital or civil status",
		Names: []string{"marital_status", "maritalstatus", "marriage_status", "civil_status", "spouse_name", "spouse"},
		Docs:  []string{"marital status"},
		Kinds: kindsCategory},
	{ID: "PII_NATIONALITY", Category: CategoryDemography, Purpose: "nationality or citizenship",
		Names: []string{"nationality", "citizenship", "country_of_citizenship", "place_of_birth", "birth_place", "birthplace", "country_of_birth"},
		Docs:  []string{"nationality", "citizenship", "place of birth"},
		Kinds: kindsCategory},
	{ID: "PII_INCOME", Category: CategoryFinancial, Purpose: "a person's salary, income or credit score",
		Names: []string{"salary", "income", "annual_income", "wage", "gross_pay", "net_pay", "credit_score", "credit_rating"},
		Docs:  []string{"salary", "annual income", "credit score"},
		Kinds: kindsID},
	{ID: "PII_ETHNICITY", Category: CategorySpecial, Purpose: "racial or ethnic origin (GDPR Art. 9)",
		Names: []string{"ethnicity", "ethnic", "ethnic_origin", "ethnic_group", "racial_origin"},
		Weak:  []string{"race"},
		Docs:  []string{"ethnicity", "ethnic origin", "racial origin"},
		Kinds: kindsSpecial, Special: true},
	{ID: "PII_RELIGION", Category: CategorySpecial, Purpose: "religious or philosophical belief (GDPR Art. 9)",
		Names: []string{"religion", "religious", "religious_belief", "faith"},
		Docs:  []string{"religion", "religious"},
		Kinds: kindsSpecial, Special: true},
	{ID: "PII_POLITICAL", Category: CategorySpecial, Purpose: "political opinion or affiliation (GDPR Art. 9)",
		Names: []string{"political_affiliation", "political_party", "political_opinion", "political_view", "party_affiliation", "trade_union", "union_membership"},
		Docs:  []string{"political", "trade union"},
		Kinds: kindsSpecial, Special: true},
	{ID: "PII_SEXUAL_ORIENTATION", Category: CategorySpecial, Purpose: "sex life or sexual orientation (GDPR Art. 9)",
		Names: []string{"sexual_orientation", "sexuality", "sex_life"},
		Docs:  []string{"sexual orientation", "sexuality"},
		Kinds: kindsSpecial, Special: true},
	{ID: "PII_HEALTH", Category: CategorySpecial, Purpose: "health data: conditions, diagnoses, medication, disability (GDPR Art. 9)",
		Names: []string{"health", "medical", "diagnosis", "diagnoses", "disability", "medication", "medications", "prescription",
			"allergy", "allergies", "blood_type", "blood_group", "icd_code", "icd10", "symptom", "symptoms", "pregnancy", "pregnant",
			"vaccination", "vaccination_status", "hiv_status", "mental_health", "medical_condition", "treatment_plan"},
		Docs:  []string{"health", "medical", "diagnosis", "medication", "disability"},
		Kinds: kindsSpecial, Special: true},
	{ID: "PII_HEALTH_ID", Category: CategorySpecial, Purpose: "a health insurance or medical record number",
		Names: []string{"nhs_number", "medicare_number", "medicaid_number", "medical_record_number", "mrn", "health_insurance_number", "health_card_number", "insurance_member_id", "patient_id"},
		Docs:  []string{"nhs number", "medical record number", "health insurance number"},
		Kinds: kindsID},
	{ID: "PII_BIOMETRIC", Category: CategorySpecial, Purpose: "biometric data: fingerprints, face, iris, voice (GDPR Art. 9)",
		Names: []string{"biometric", "biometrics", "biometric_template", "fingerprint_template", "fingerprint_image", "face_id", "faceprint",
			"face_template", "face_embedding", "facial_features", "iris_scan", "retina_scan", "voiceprint", "voice_print", "palm_print"},
		Weak:  []string{"fingerprint", "fingerprints"},
		Docs:  []string{"biometric", "fingerprint", "facial recognition", "iris scan", "voiceprint"},
		Kinds: kindsSpecial, Special: true},
	{ID: "PII_CRIMINAL", Category: CategorySpecial, Purpose: "criminal convictions and offences (GDPR Art. 10)",
		Names: []string{"criminal_record", "criminal_history", "conviction", "convictions", "criminal_offence", "criminal_offense", "arrest_record"},
		Docs:  []string{"criminal record", "conviction"},
		Kinds: kindsSpecial, Special: true},
}

// defaultAllowList holds names that contain a pattern's words but are not
// personal data, each a word sequence: a field whose name contains one is
// never flagged. The detector already ignores names that only describe
// personal data (a suffix such as _verified, _count, _type, _at; a prefix
// such as is_, has_, num_) and booleans, so the list only holds what those
// rules cannot see: technical meanings of ambiguous words.
var defaultAllowList = []string{
	// Consent flags, kept explicitly although "opt" already marks them.
	"email_opt_in", "email_opt_out", "sms_opt_in",
	// Service health, not a person's.
	"health_check", "healthcheck", "health_endpoint", "service_health", "cluster_health", "node_health", "broker_health",
	// Network endpoints of machines.
	"server_address", "broker_address", "bind_address", "listen_address", "host_address", "node_address",
	"proxy_address", "gateway_address", "memory_address", "contract_address", "base_address",
	"callback_address", "webhook_address", "multicast_address", "broadcast_address", "server_ip", "broker_ip", "node_ip", "pod_ip", "cluster_ip", "host_ip",
	// Digests and fingerprints of keys and data.
	"schema_fingerprint", "certificate_fingerprint", "cert_fingerprint", "key_fingerprint", "tls_fingerprint",
	"ssh_fingerprint", "file_fingerprint", "content_fingerprint",
	// Other technical meanings.
	"zip_file", "zip_archive", "race_condition", "secret_name", "secret_ref", "secret_arn", "secret_version",
	"mail_server", "mail_host", "mail_queue", "mobile_app", "mobile_os", "mobile_platform",
	"street_view",
}
