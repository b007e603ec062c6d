package jvm

// Locale is one entry of GET /system/locales: a BCP 47 tag and its English
// name, as Java's Locale.toLanguageTag and getDisplayName write them.
type Locale struct {
	Tag  string `json:"language_tag"`
	Name string `json:"display_name"`
}

// locales are the locales loggate offers: the common ones of a JVM's
// Locale.getAvailableLocales(), by their English names.
var locales = []Locale{
	{"ar", "Arabic"}, {"ar-EG", "Arabic (Egypt)"}, {"ar-SA", "Arabic (Saudi Arabia)"},
	{"bg-BG", "Bulgarian (Bulgaria)"}, {"ca-ES", "Catalan (Spain)"}, {"cs-CZ", "Czech (Czech Republic)"},
	{"da-DK", "Danish (Denmark)"}, {"de", "German"}, {"de-AT", "German (Austria)"},
	{"de-CH", "German (Switzerland)"}, {"de-DE", "German (Germany)"}, {"el-GR", "Greek (Greece)"},
	{"en", "English"}, {"en-AU", "English (Australia)"}, {"en-CA", "English (Canada)"},
	{"en-GB", "English (United Kingdom)"}, {"en-IE", "English (Ireland)"}, {"en-IN", "English (India)"},
	{"en-NZ", "English (New Zealand)"}, {"en-US", "English (United States)"}, {"en-ZA", "English (South Africa)"},
	{"es", "Spanish"}, {"es-AR", "Spanish (Argentina)"}, {"es-ES", "Spanish (Spain)"},
	{"es-MX", "Spanish (Mexico)"}, {"et-EE", "Estonian (Estonia)"}, {"fi-FI", "Finnish (Finland)"},
	{"fr", "French"}, {"fr-BE", "French (Belgium)"}, {"fr-CA", "French (Canada)"},
	{"fr-CH", "French (Switzerland)"}, {"fr-FR", "French (France)"}, {"he-IL", "Hebrew (Israel)"},
	{"hi-IN", "Hindi (India)"}, {"hr-HR", "Croatian (Croatia)"}, {"hu-HU", "Hungarian (Hungary)"},
	{"id-ID", "Indonesian (Indonesia)"}, {"is-IS", "Icelandic (Iceland)"}, {"it", "Italian"},
	{"it-CH", "Italian (Switzerland)"}, {"it-IT", "Italian (Italy)"}, {"ja-JP", "Japanese (Japan)"},
	{"ko-KR", "Korean (South Korea)"}, {"lt-LT", "Lithuanian (Lithuania)"}, {"lv-LV", "Latvian (Latvia)"},
	{"nb-NO", "Norwegian Bokmål (Norway)"}, {"nl", "Dutch"}, {"nl-BE", "Dutch (Belgium)"},
	{"nl-NL", "Dutch (Netherlands)"}, {"pl-PL", "Polish (Poland)"}, {"pt", "Portuguese"},
	{"pt-BR", "Portuguese (Brazil)"}, {"pt-PT", "Portuguese (Portugal)"}, {"ro-RO", "Romanian (Romania)"},
	{"ru-RU", "Russian (Russia)"}, {"sk-SK", "Slovak (Slovakia)"}, {"sl-SI", "Slovenian (Slovenia)"},
	{"sr-RS", "Serbian (Serbia)"}, {"sv-SE", "Swedish (Sweden)"}, {"th-TH", "Thai (Thailand)"},
	{"tr-TR", "Turkish (Turkey)"}, {"uk-UA", "Ukrainian (Ukraine)"}, {"vi-VN", "Vietnamese (Vietnam)"},
	{"zh", "Chinese"}, {"zh-CN", "Chinese (China)"}, {"zh-HK", "Chinese (Hong Kong)"}, {"zh-TW", "Chinese (Taiwan)"},
}
